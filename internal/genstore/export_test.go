package genstore

// This file gives the external tests (package genstore_test, which may
// import protobuftest and dynamic without an import cycle) the unexported
// parts of the package they check.

// RepCount is the number of representations: one past the last valid Rep.
const RepCount = repCount

// OneofRecord returns the record of the real oneof holding f, or nil for
// a field outside real oneofs.
func (f *Field) OneofRecord() *Oneof { return f.oneof }

// StructIndex returns the index of the oneof's interface field in the
// message struct.
func (o *Oneof) StructIndex() int { return o.index }
