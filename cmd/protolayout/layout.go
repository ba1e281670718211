package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/layout"
)

var layoutCommand = &command{
	name:     "layout",
	summary:  "print the emission order protolayout compiled for a message type",
	synopsis: "(-descriptors FILE | -proto DIR) [-type pkg.Msg [-all]]",
	doc: `Layout prints the layout protolayout compiled for the message type -type
names: its fields in the order the encoder writes them (after the set
extensions, listed first, and before unknown fields), each with its number,
type, wire type, encoded tag in hex, packed record tag, presence, oneof and
notes (UTF-8 validation, required, group end tag). It is meant for tracking
down a byte difference. With -all it prints the layout of every message type
reachable from -type too. Without -type it lists the schema's message types.
`,
	setup: func(fs *flag.FlagSet) func(*env) error {
		var f layoutFlags
		f.schema.register(fs)
		fs.BoolVar(&f.all, "all", false, "print the layouts of every message type reachable from -type too")
		return f.run
	},
}

type layoutFlags struct {
	schema schemaFlags
	all    bool
}

func (f *layoutFlags) run(e *env) error {
	sc, err := f.schema.load()
	if err != nil {
		return err
	}
	if f.schema.typeName == "" {
		if f.all {
			return usageErrorf("-all needs -type")
		}
		for _, n := range sc.messageNames() {
			fmt.Fprintln(e.stdout, n)
		}
		return nil
	}
	md, err := sc.message(f.schema.typeName)
	if err != nil {
		return err
	}
	mds := []protoreflect.MessageDescriptor{md}
	if f.all {
		mds = reachable(md)
	}
	for i, md := range mds {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		printLayout(e.stdout, sc, md)
	}
	return nil
}

// reachable returns md and every message type its fields, map values and
// known extensions hold, transitively, in the order they are first met,
// map entries left out.
func reachable(md protoreflect.MessageDescriptor) []protoreflect.MessageDescriptor {
	seen := map[protoreflect.FullName]bool{md.FullName(): true}
	out := []protoreflect.MessageDescriptor{md}
	for i := 0; i < len(out); i++ {
		fields := out[i].Fields()
		for j := range fields.Len() {
			fd := fields.Get(j)
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			if m := fd.Message(); m != nil && !seen[m.FullName()] {
				seen[m.FullName()] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// printLayout prints the layout of md as a table: the extensions of md the
// schema declares, by ascending number, then its fields in emission order.
func printLayout(w io.Writer, sc *schema, md protoreflect.MessageDescriptor) {
	l := layout.Of(md)
	exts := sc.extensionsOf(md.FullName())

	fmt.Fprintf(w, "%s: %s\n", l.FullName(), summary(l, len(exts)))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tFIELD\tNUMBER\tTYPE\tWIRE\tTAG\tPACKED\tPRESENCE\tONEOF\tNOTES")
	for _, xd := range exts {
		printField(tw, "ext", layout.Extension(xd), xd, "-")
	}
	oneofs := l.Oneofs()
	fields := md.Fields()
	for i, f := range l.Fields() {
		oneof := "-"
		if o := f.Oneof(); o >= 0 {
			oneof = string(oneofs[o].Name)
		}
		printField(tw, fmt.Sprint(i), f, fields.ByNumber(f.Number()), oneof)
	}
	tw.Flush()
}

// summary describes a layout in the line above its table.
func summary(l layout.Layout, exts int) string {
	var parts []string
	parts = append(parts, plural(l.Len(), "field")+" in emission order")
	if oneofs := l.Oneofs(); len(oneofs) > 0 {
		parts = append(parts, fmt.Sprintf("%d outside oneofs, then %s", l.Regular(), plural(len(oneofs), "oneof")))
	}
	if l.Extendable() {
		parts = append(parts, "extendable, "+plural(exts, "extension")+" known, written first")
	}
	if l.MapEntry() {
		parts = append(parts, "a map entry")
	}
	if l.MessageSet() {
		parts = append(parts, "MessageSet wire format, which protolayout refuses to encode")
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// printField prints one row of a layout table; fd is f's descriptor.
func printField(w io.Writer, pos string, f layout.Field, fd protoreflect.FieldDescriptor, oneof string) {
	name := string(f.Name())
	if f.IsExtension() {
		name = "[" + string(f.FullName()) + "]"
	}
	packed := "-"
	if f.IsPacked() {
		packed = "yes (" + hexBytes(f.PackedTag()) + ")"
	}
	presence := "-" // lists and maps: no presence, empty ones are not written
	switch {
	case f.IsList() || f.IsMap():
	case f.IsRequired():
		presence = "required"
	case f.HasPresence():
		presence = "explicit"
	default:
		presence = "implicit"
	}
	var notes []string
	if f.ValidatesUTF8() {
		notes = append(notes, "utf8 checked")
	}
	if f.IsGroup() {
		notes = append(notes, "end tag "+hexBytes(f.EndTag()))
	}
	if f.IsMap() {
		notes = append(notes, "entry: key "+hexBytes(f.MapKey().Tag())+", value "+hexBytes(f.MapValue().Tag()))
	}
	if len(notes) == 0 {
		notes = append(notes, "-")
	}
	fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
		pos, name, f.Number(), typeName(f, fd), wireName(f.WireType()), hexBytes(f.Tag()),
		packed, presence, oneof, strings.Join(notes, "; "))
}

// typeName spells the type of field f (descriptor fd) as a .proto file would.
func typeName(f layout.Field, fd protoreflect.FieldDescriptor) string {
	switch {
	case f.IsMap():
		return "map<" + typeName(f.MapKey(), fd.MapKey()) + ", " + typeName(f.MapValue(), fd.MapValue()) + ">"
	case f.IsList():
		return "repeated " + elemName(f, fd)
	}
	return elemName(f, fd)
}

// elemName spells the type of one value of field f.
func elemName(f layout.Field, fd protoreflect.FieldDescriptor) string {
	switch f.Kind() {
	case protoreflect.MessageKind:
		return string(f.Message().FullName())
	case protoreflect.GroupKind:
		return "group " + string(f.Message().FullName())
	case protoreflect.EnumKind:
		if fd != nil && fd.Enum() != nil {
			return "enum " + string(fd.Enum().FullName())
		}
		return "enum"
	}
	return f.Kind().String()
}

// wireName names a wire type as the encoding guide does.
func wireName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed64Type:
		return "i64"
	case protowire.BytesType:
		return "len"
	case protowire.StartGroupType:
		return "sgroup"
	case protowire.EndGroupType:
		return "egroup"
	case protowire.Fixed32Type:
		return "i32"
	}
	return fmt.Sprint(int(t))
}

// hexBytes formats b as hex bytes separated by spaces, "-" if empty.
func hexBytes(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return fmt.Sprintf("% x", b)
}
