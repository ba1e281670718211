package dynamic_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// FuzzUnmarshalGenerated decodes arbitrary bytes (the seeds: random
// messages of every test type and the hand cases; the fuzzer mutates
// them) into the generated type of every test schema and into a
// dynamic.Message of the same descriptor, with two sets of options, and
// holds the two to the same outcome and the same message: the same
// bytes once encoded with Deterministic (dynamic's passed through the
// generated type once more, which writes the tags of unknown fields in
// as few bytes as they need, where dynamic keeps them as read, as
// dynamicpb does). Types that reach a closed enum
// or an extension range are held to the same outcome only, plus a
// re-encoding that the generated type decodes: the generated code moves
// a closed enum's unknown values (and the map entries holding them) to
// the unknown fields, where dynamic keeps them as dynamicpb does
// (FuzzUnmarshal holds dynamic to dynamicpb byte for byte); where their
// outcomes differ, dynamic's must be dynamicpb's. Under go
// test it runs the seeds only; task fuzz runs it longer.
func FuzzUnmarshalGenerated(f *testing.F) {
	addDecodeSeeds(f)
	twins := protobuftest.Twins()
	exact := make([]bool, len(twins))
	for i, tw := range twins {
		exact[i] = !closedOrExtendable(tw.Gen.Descriptor())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i, tw := range twins {
			for _, o := range []proto.UnmarshalOptions{{}, {AllowPartial: true, DiscardUnknown: true}} {
				sameAsGenerated(t, b, o, tw, exact[i])
			}
		}
	})
}

// sameAsGenerated decodes b with o into new messages of tw's generated
// type and of dynamic, and compares them (see FuzzUnmarshalGenerated).
func sameAsGenerated(t *testing.T, b []byte, o proto.UnmarshalOptions, tw protobuftest.Twin, exact bool) {
	t.Helper()
	gen := tw.Gen.New().Interface()
	dyn := dynamic.NewMessage(tw.Dyn.Descriptor())
	od := o
	od.Resolver = decodeTypesDyn
	errg := o.Unmarshal(b, gen)
	errd := od.Unmarshal(b, dyn)
	if (errg == nil) != (errd == nil) {
		// Where protobuf-go's two paths disagree (a repeated string
		// extension of a proto3 file is UTF-8 checked by the reflection
		// path only), dynamic follows dynamicpb's.
		op := o
		op.Resolver = protobuftest.DynamicTypes()
		panicked, errp := unmarshalRecover(op, b, dynamicpb.NewMessage(tw.Dyn.Descriptor()))
		if exact || panicked != nil || (errp == nil) != (errd == nil) {
			t.Fatalf("%v %+v: Unmarshal of %x: generated error %v, dynamic error %v, dynamicpb error %v (panic %v)", tw.Name, o, b, errg, errd, errp, panicked)
		}
		return
	}
	if errd != nil {
		return
	}
	protobuftest.QuietFloat32NaNs(gen)
	protobuftest.QuietFloat32NaNs(dyn)
	bg, errg := partialMarshal.Marshal(gen)
	bd, errd := partialMarshal.Marshal(dyn)
	if errg != nil || errd != nil {
		t.Fatalf("%v: Marshal errors %v (generated), %v (dynamic)", tw.Name, errg, errd)
	}
	// dynamic's re-encoding as the generated type decodes and encodes it
	// again, which writes the tags of unknown fields in as few bytes as
	// they need where dynamic, as dynamicpb, keeps them as read.
	again := tw.Gen.New().Interface()
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(bd, again); err != nil {
		t.Fatalf("%v: the generated type does not decode dynamic's re-encoding %x: %v", tw.Name, bd, err)
	}
	if !exact {
		return
	}
	protobuftest.QuietFloat32NaNs(again)
	ba, err := partialMarshal.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ba, bg) {
		t.Fatalf("%v %+v: Unmarshal of %x: re-encoding differs from the generated type's:\n%s",
			tw.Name, o, b, protobuftest.FirstDiff(ba, bg, tw.Dyn.Descriptor()))
	}
}

// closedOrExtendable reports whether md, or a message type reachable from
// its fields, has a field of a closed enum or extension ranges.
func closedOrExtendable(md protoreflect.MessageDescriptor) bool {
	seen := map[protoreflect.FullName]bool{}
	var visit func(md protoreflect.MessageDescriptor) bool
	visit = func(md protoreflect.MessageDescriptor) bool {
		if md == nil || seen[md.FullName()] {
			return false
		}
		seen[md.FullName()] = true
		if md.ExtensionRanges().Len() > 0 {
			return true
		}
		fds := md.Fields()
		for i := range fds.Len() {
			fd := fds.Get(i)
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			if ed := fd.Enum(); ed != nil && ed.IsClosed() {
				return true
			}
			if visit(fd.Message()) {
				return true
			}
		}
		return false
	}
	return visit(md)
}

// The differential target compares byte for byte on some test types:
// the check cannot pass by having nothing to compare.
func TestUnmarshalGeneratedCoverage(t *testing.T) {
	exact := 0
	for _, tw := range protobuftest.Twins() {
		if !closedOrExtendable(tw.Gen.Descriptor()) {
			exact++
		}
	}
	if exact < 3 {
		t.Fatalf("%d test types compared byte for byte with the generated type, want 3 at least", exact)
	}
	t.Logf("%d of %d test types compared byte for byte", exact, len(protobuftest.Twins()))
}
