package layout

// LayoutView and FieldView are read-only handles on a layout record: the
// representation of the public package layout's Layout and Field, which
// are defined as these types (so that the public cursor package can
// convert a record into its public view) and whose methods read the
// record through Rec. Code outside the module cannot name these types,
// and so never reaches a record through a view.
type (
	LayoutView struct{ l *Layout }
	FieldView  struct{ f *Field }
)

// ViewOfLayout returns the view of l.
func ViewOfLayout(l *Layout) LayoutView { return LayoutView{l} }

// ViewOfField returns the view of f.
func ViewOfField(f *Field) FieldView { return FieldView{f} }

// Rec returns the record v views, or nil for the zero view.
func (v LayoutView) Rec() *Layout { return v.l }

// Rec returns the record v views, or nil for the zero view.
func (v FieldView) Rec() *Field { return v.f }
