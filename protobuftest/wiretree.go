package protobuftest

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// WireTree renders b as an indented tree of records, one per line: the
// byte offset of the record, its field number (and field name when md
// knows it), its wire type and its value. Length-delimited values that
// parse as messages are shown nested (always when md says the field is a
// message, best effort otherwise), other ones as quoted strings or hex, and
// packed fields as lists. Extensions are named when protoregistry.GlobalTypes
// knows them. WireTree never panics on garbage: an undecodable tail is
// shown as hex. md may be nil.
func WireTree(b []byte, md protoreflect.MessageDescriptor) string {
	return joinLines(renderTree(b, md, globalFields))
}

// FirstDiff returns a human-readable description of the first record where
// got and want differ, or "" when they are equal. The description starts
// with the record's path, e.g. "resource_spans[0].scope_spans[1].spans[3].name
// (field 5)" with a descriptor or "1[0].2[1].5" without one (an index counts
// the records of that field number in the parent; with a descriptor only
// repeated fields have one), followed by the byte offset of the record in
// got (and in want when it differs) and both records in short form.
func FirstDiff(got, want []byte, md protoreflect.MessageDescriptor) string {
	return firstDiff(got, want, md, globalFields)
}

// fieldFinder looks up the field or extension numbered num in md.
type fieldFinder func(md protoreflect.MessageDescriptor, num protowire.Number) protoreflect.FieldDescriptor

// globalFields finds declared fields and the extensions registered in
// protoregistry.GlobalTypes.
func globalFields(md protoreflect.MessageDescriptor, num protowire.Number) protoreflect.FieldDescriptor {
	return findField(md, num, protoregistry.GlobalTypes)
}

// findField finds a declared field, or an extension known to r (which may
// be nil).
func findField(md protoreflect.MessageDescriptor, num protowire.Number, r protoregistry.ExtensionTypeResolver) protoreflect.FieldDescriptor {
	if md == nil {
		return nil
	}
	if fd := md.Fields().ByNumber(num); fd != nil {
		return fd
	}
	if r == nil || !md.ExtensionRanges().Has(num) {
		return nil
	}
	if xt, err := r.FindExtensionByNumber(md.FullName(), num); err == nil {
		return xt.TypeDescriptor()
	}
	return nil
}

// maxTreeDepth bounds nesting when rendering or diffing; deeper values are
// shown flat.
const maxTreeDepth = 100

// record is one parsed wire record.
type record struct {
	off     int // offset of the tag, relative to the start of the whole input
	num     protowire.Number
	typ     protowire.Type
	raw     []byte // tag and value (for a group, up to and including the end tag)
	val     []byte // LEN payload or group body
	valOff  int    // offset of val
	v       uint64 // varint, fixed32 or fixed64 value
	garbage error  // set for the undecodable tail, which raw then holds
}

// parseRecords splits b into records. An undecodable tail becomes a final
// record with garbage set. base is the offset of b in the whole input.
func parseRecords(b []byte, base int) []record {
	var recs []record
	off := 0
	for off < len(b) {
		r, err := parseRecord(b[off:], base+off)
		if err != nil {
			recs = append(recs, record{off: base + off, raw: b[off:], garbage: err})
			break
		}
		recs = append(recs, r)
		off += len(r.raw)
	}
	return recs
}

func parseRecord(b []byte, off int) (record, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return record{}, protowire.ParseError(n)
	}
	r := record{off: off, num: num, typ: typ}
	rest := b[n:]
	var m int
	switch typ {
	case protowire.VarintType:
		r.v, m = protowire.ConsumeVarint(rest)
	case protowire.Fixed32Type:
		var v uint32
		v, m = protowire.ConsumeFixed32(rest)
		r.v = uint64(v)
	case protowire.Fixed64Type:
		r.v, m = protowire.ConsumeFixed64(rest)
	case protowire.BytesType:
		r.val, m = protowire.ConsumeBytes(rest)
		if m >= 0 {
			r.valOff = off + n + m - len(r.val)
		}
	case protowire.StartGroupType:
		m = protowire.ConsumeFieldValue(num, typ, rest)
		if m >= 0 {
			// The body is everything before the matching end tag.
			end := protowire.SizeTag(num)
			r.val = rest[:m-end]
			r.valOff = off + n
		}
	default: // a stray end group, or wire types 6 and 7
		return record{}, fmt.Errorf("unexpected wire type %d for field %d", typ, num)
	}
	if m < 0 {
		return record{}, protowire.ParseError(m)
	}
	r.raw = b[:n+m]
	return r, nil
}

// isMessage reports whether b parses completely as a sequence of records.
func isMessage(b []byte) bool {
	recs := parseRecords(b, 0)
	return len(recs) == 0 || recs[len(recs)-1].garbage == nil
}

// treeLine is one rendered line; off is the offset of its record, or -1 for
// a closing brace.
type treeLine struct {
	off    int
	indent int
	text   string
}

func renderTree(b []byte, md protoreflect.MessageDescriptor, find fieldFinder) []treeLine {
	if len(b) == 0 {
		return []treeLine{{off: -1, text: "(empty)"}}
	}
	var lines []treeLine
	renderRecords(&lines, b, 0, md, find, 0)
	return lines
}

func renderRecords(lines *[]treeLine, b []byte, base int, md protoreflect.MessageDescriptor, find fieldFinder, depth int) {
	for _, r := range parseRecords(b, base) {
		if r.garbage != nil {
			*lines = append(*lines, treeLine{off: r.off, indent: depth,
				text: fmt.Sprintf("undecodable (%v): %s", r.garbage, hexString(r.raw))})
			return
		}
		fd := find(md, r.num)
		head := fieldLabel(r.num, fd)
		switch r.typ {
		case protowire.VarintType:
			*lines = append(*lines, treeLine{r.off, depth, head + " VARINT " + varintText(r.v, fd)})
		case protowire.Fixed32Type:
			*lines = append(*lines, treeLine{r.off, depth, head + " I32 " + fixed32Text(uint32(r.v), fd)})
		case protowire.Fixed64Type:
			*lines = append(*lines, treeLine{r.off, depth, head + " I64 " + fixed64Text(r.v, fd)})
		case protowire.StartGroupType:
			if depth >= maxTreeDepth {
				*lines = append(*lines, treeLine{r.off, depth, head + " GROUP " + hexString(r.val)})
				continue
			}
			*lines = append(*lines, treeLine{r.off, depth, head + " GROUP {"})
			renderRecords(lines, r.val, r.valOff, childMessage(fd), find, depth+1)
			*lines = append(*lines, treeLine{-1, depth, "}"})
		case protowire.BytesType:
			head += fmt.Sprintf(" LEN %d", len(r.val))
			if nested := nestedDescriptor(fd, r.val); nested.ok && depth < maxTreeDepth && len(r.val) > 0 {
				*lines = append(*lines, treeLine{r.off, depth, head + " {"})
				renderRecords(lines, r.val, r.valOff, nested.md, find, depth+1)
				*lines = append(*lines, treeLine{-1, depth, "}"})
				continue
			}
			*lines = append(*lines, treeLine{r.off, depth, head + " " + bytesText(r.val, fd)})
		}
	}
}

type nestedInfo struct {
	md protoreflect.MessageDescriptor
	ok bool
}

// nestedDescriptor tells whether a LEN value is shown as a message: when
// fd is a message field (even if val does not parse, so that the garbage
// shows), or when there is no usable descriptor and val parses and is not
// printable text.
func nestedDescriptor(fd protoreflect.FieldDescriptor, val []byte) nestedInfo {
	if fd != nil {
		if fd.Kind() == protoreflect.MessageKind {
			return nestedInfo{fd.Message(), true}
		}
		if fd.Kind() != protoreflect.BytesKind || !isMessage(val) || isPrintable(val) {
			return nestedInfo{}
		}
		// Bytes (e.g. Any.value) that look like a message: show them
		// nested without names.
		return nestedInfo{nil, true}
	}
	if isPrintable(val) || !isMessage(val) {
		return nestedInfo{}
	}
	return nestedInfo{nil, true}
}

func childMessage(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd != nil && (fd.Kind() == protoreflect.GroupKind || fd.Kind() == protoreflect.MessageKind) {
		return fd.Message()
	}
	return nil
}

func fieldLabel(num protowire.Number, fd protoreflect.FieldDescriptor) string {
	s := strconv.Itoa(int(num))
	if fd != nil {
		s += " " + fieldName(fd)
	}
	return s
}

func fieldName(fd protoreflect.FieldDescriptor) string {
	if fd.IsExtension() {
		return "[" + string(fd.FullName()) + "]"
	}
	return string(fd.Name())
}

// isPrintable reports whether b is valid UTF-8 text made of printable
// characters and spaces.
func isPrintable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	return true
}

const maxShownBytes = 64

func quoteText(b []byte) string {
	if len(b) > maxShownBytes {
		cut := maxShownBytes
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return strconv.Quote(string(b[:cut])) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return strconv.Quote(string(b))
}

func hexString(b []byte) string {
	if len(b) > maxShownBytes {
		return hex.EncodeToString(b[:maxShownBytes]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return hex.EncodeToString(b)
}

func bytesText(b []byte, fd protoreflect.FieldDescriptor) string {
	if len(b) == 0 {
		return `""`
	}
	if fd != nil && fd.IsList() {
		if s, ok := packedText(b, fd); ok {
			return s
		}
	}
	if fd != nil && fd.Kind() == protoreflect.StringKind {
		if utf8.Valid(b) {
			return quoteText(b)
		}
		return quoteText(b) + " (invalid UTF-8)"
	}
	if isPrintable(b) {
		return quoteText(b)
	}
	if fd != nil && fd.Kind() == protoreflect.MessageKind {
		return "(not a valid message) " + hexString(b)
	}
	return "0x" + hexString(b)
}

// packedText decodes a packed repeated scalar field.
func packedText(b []byte, fd protoreflect.FieldDescriptor) (string, bool) {
	var elems []string
	for len(b) > 0 {
		var n int
		switch wireTypeOf(fd.Kind()) {
		case protowire.VarintType:
			var v uint64
			v, n = protowire.ConsumeVarint(b)
			if n >= 0 {
				elems = append(elems, varintText(v, fd))
			}
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			if n >= 0 {
				elems = append(elems, fixed32Text(v, fd))
			}
		case protowire.Fixed64Type:
			var v uint64
			v, n = protowire.ConsumeFixed64(b)
			if n >= 0 {
				elems = append(elems, fixed64Text(v, fd))
			}
		default:
			return "", false
		}
		if n < 0 {
			return "", false
		}
		b = b[n:]
	}
	if len(elems) > 32 {
		elems = append(elems[:32], fmt.Sprintf("... (%d elements)", len(elems)))
	}
	return "packed [" + strings.Join(elems, ", ") + "]", true
}

// wireTypeOf is the wire type of a scalar kind (BytesType for the others).
func wireTypeOf(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Int64Kind,
		protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.VarintType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.BytesType
}

func varintText(v uint64, fd protoreflect.FieldDescriptor) string {
	if fd != nil {
		switch fd.Kind() {
		case protoreflect.BoolKind:
			if v <= 1 {
				return strconv.FormatBool(v == 1)
			}
		case protoreflect.Int32Kind:
			return strconv.FormatInt(int64(int32(v)), 10)
		case protoreflect.Int64Kind:
			return strconv.FormatInt(int64(v), 10)
		case protoreflect.Uint32Kind:
			return strconv.FormatUint(uint64(uint32(v)), 10)
		case protoreflect.Uint64Kind:
			return strconv.FormatUint(v, 10)
		case protoreflect.Sint32Kind:
			return strconv.FormatInt(int64(int32(protowire.DecodeZigZag(v&math.MaxUint32))), 10)
		case protoreflect.Sint64Kind:
			return strconv.FormatInt(protowire.DecodeZigZag(v), 10)
		case protoreflect.EnumKind:
			n := protoreflect.EnumNumber(int32(v))
			if ev := fd.Enum().Values().ByNumber(n); ev != nil {
				return fmt.Sprintf("%d (%s)", n, ev.Name())
			}
			return fmt.Sprintf("%d (undeclared)", n)
		}
	}
	if int64(v) < 0 {
		return fmt.Sprintf("%d (%d)", v, int64(v))
	}
	return strconv.FormatUint(v, 10)
}

func fixed32Text(v uint32, fd protoreflect.FieldDescriptor) string {
	if fd != nil {
		switch fd.Kind() {
		case protoreflect.FloatKind:
			return fmt.Sprintf("%g (0x%08x)", math.Float32frombits(v), v)
		case protoreflect.Sfixed32Kind:
			return strconv.FormatInt(int64(int32(v)), 10)
		case protoreflect.Fixed32Kind:
			return strconv.FormatUint(uint64(v), 10)
		}
	}
	return fmt.Sprintf("0x%08x (%d, %g)", v, v, math.Float32frombits(v))
}

func fixed64Text(v uint64, fd protoreflect.FieldDescriptor) string {
	if fd != nil {
		switch fd.Kind() {
		case protoreflect.DoubleKind:
			return fmt.Sprintf("%g (0x%016x)", math.Float64frombits(v), v)
		case protoreflect.Sfixed64Kind:
			return strconv.FormatInt(int64(v), 10)
		case protoreflect.Fixed64Kind:
			return strconv.FormatUint(v, 10)
		}
	}
	return fmt.Sprintf("0x%016x (%d, %g)", v, v, math.Float64frombits(v))
}

func joinLines(lines []treeLine) string {
	var sb strings.Builder
	for i, l := range lines {
		if i > 0 {
			sb.WriteByte('\n')
		}
		writeLine(&sb, l)
	}
	return sb.String()
}

func writeLine(sb *strings.Builder, l treeLine) {
	if l.off >= 0 {
		fmt.Fprintf(sb, "%6d  ", l.off)
	} else {
		sb.WriteString("        ")
	}
	sb.WriteString(strings.Repeat("  ", l.indent))
	sb.WriteString(l.text)
}

// treeWindow renders at most about 2*context+1 lines around the first line
// whose record starts at or after off (the whole tree when it is short).
func treeWindow(lines []treeLine, off, context int) string {
	if len(lines) <= 2*context+1 {
		return joinLines(lines)
	}
	at := len(lines) - 1
	for i, l := range lines {
		if l.off >= off {
			at = i
			break
		}
	}
	lo, hi := max(0, at-context), min(len(lines), at+context+1)
	var sb strings.Builder
	if lo > 0 {
		fmt.Fprintf(&sb, "        ... (%d lines)\n", lo)
	}
	sb.WriteString(joinLines(lines[lo:hi]))
	if hi < len(lines) {
		fmt.Fprintf(&sb, "\n        ... (%d more lines)", len(lines)-hi)
	}
	return sb.String()
}

// diffResult locates the first difference.
type diffResult struct {
	text    string
	gotOff  int
	wantOff int
}

func firstDiff(got, want []byte, md protoreflect.MessageDescriptor, find fieldFinder) string {
	d, ok := locateDiff(got, want, md, find)
	if !ok {
		return ""
	}
	return d.text
}

// locateDiff finds the first difference between got and want.
func locateDiff(got, want []byte, md protoreflect.MessageDescriptor, find fieldFinder) (diffResult, bool) {
	if string(got) == string(want) {
		return diffResult{}, false
	}
	d := diffRecords(got, want, 0, 0, md, find, "", 0)
	if d.text == "" {
		// Unreachable when the parsers agree; keep a fallback.
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		d = diffResult{fmt.Sprintf("byte %d", i), i, i}
	}
	return d, true
}

func diffRecords(got, want []byte, gotBase, wantBase int, md protoreflect.MessageDescriptor, find fieldFinder, path string, depth int) diffResult {
	g, w := parseRecords(got, gotBase), parseRecords(want, wantBase)
	seen := make(map[protowire.Number]int)  // records per field number so far
	elems := make(map[protowire.Number]int) // packed elements per field number so far
	for i := 0; i < len(g) || i < len(w); i++ {
		var gr, wr *record
		if i < len(g) {
			gr = &g[i]
		}
		if i < len(w) {
			wr = &w[i]
		}
		if gr != nil && wr != nil && string(gr.raw) == string(wr.raw) && (gr.garbage == nil) == (wr.garbage == nil) {
			seen[gr.num]++
			if fd := find(md, gr.num); fd != nil && fd.IsList() && gr.typ == protowire.BytesType {
				elems[gr.num] += packedCount(gr.val, fd)
			}
			continue
		}
		gotOff, wantOff := gotBase+len(got), wantBase+len(want)
		if gr != nil {
			gotOff = gr.off
		}
		if wr != nil {
			wantOff = wr.off
		}
		// The path names the record of want (or of got when want ended).
		ref := wr
		if ref == nil || ref.garbage != nil {
			ref = gr
		}
		if ref == nil || ref.garbage != nil {
			return diffResult{fmt.Sprintf("%s at %s: got %s, want %s",
				orTop(path), offsets(gotOff, wantOff), short(gr, md, find), short(wr, md, find)), gotOff, wantOff}
		}
		fd := find(md, ref.num)
		seg := pathSegment(ref.num, fd, seen[ref.num])
		sub := joinPath(path, seg)
		if gr != nil && wr != nil && gr.garbage == nil && wr.garbage == nil && gr.num == wr.num && gr.typ == wr.typ && depth < maxTreeDepth {
			switch {
			case gr.typ == protowire.StartGroupType:
				if d := diffRecords(gr.val, wr.val, gr.valOff, wr.valOff, childMessage(fd), find, sub, depth+1); d.text != "" {
					return d
				}
			case gr.typ == protowire.BytesType && nestedBoth(fd, gr.val, wr.val):
				if d := diffRecords(gr.val, wr.val, gr.valOff, wr.valOff, childMessage(fd), find, sub, depth+1); d.text != "" {
					return d
				}
			case gr.typ == protowire.BytesType && fd != nil && fd.IsList() && wireTypeOf(fd.Kind()) != protowire.BytesType:
				if k, ok := packedDiff(gr.val, wr.val, fd); ok {
					seg = string(fd.Name()) + "[" + strconv.Itoa(elems[ref.num]+k) + "]"
					if fd.IsExtension() {
						seg = fieldName(fd) + "[" + strconv.Itoa(elems[ref.num]+k) + "]"
					}
					sub = joinPath(path, seg)
				}
			}
		}
		if fd != nil {
			sub += fmt.Sprintf(" (field %d)", ref.num)
		} else if seen[ref.num] == 0 {
			// Without a descriptor the last segment has an index only
			// when the field number occurred before.
			sub = joinPath(path, strconv.Itoa(int(ref.num)))
		}
		return diffResult{fmt.Sprintf("%s at %s: got %s, want %s",
			sub, offsets(gotOff, wantOff), short(gr, md, find), short(wr, md, find)), gotOff, wantOff}
	}
	return diffResult{}
}

// nestedBoth reports whether two differing LEN values of one field are
// compared as messages.
func nestedBoth(fd protoreflect.FieldDescriptor, a, b []byte) bool {
	if fd != nil {
		if fd.Kind() == protoreflect.MessageKind {
			return isMessage(a) && isMessage(b)
		}
		return false
	}
	return len(a) > 0 && len(b) > 0 && isMessage(a) && isMessage(b) && !isPrintable(a) && !isPrintable(b)
}

// packedCount returns the number of elements in a packed value (0 when it
// is not one).
func packedCount(b []byte, fd protoreflect.FieldDescriptor) int {
	n := 0
	for len(b) > 0 {
		m := consumeScalar(b, fd.Kind())
		if m < 0 {
			return 0
		}
		b = b[m:]
		n++
	}
	return n
}

// packedDiff returns the index of the first differing element of two
// packed values.
func packedDiff(a, b []byte, fd protoreflect.FieldDescriptor) (int, bool) {
	k := 0
	for len(a) > 0 && len(b) > 0 {
		na, nb := consumeScalar(a, fd.Kind()), consumeScalar(b, fd.Kind())
		if na < 0 || nb < 0 {
			return k, true
		}
		if string(a[:na]) != string(b[:nb]) {
			return k, true
		}
		a, b = a[na:], b[nb:]
		k++
	}
	return k, true
}

func consumeScalar(b []byte, k protoreflect.Kind) int {
	switch wireTypeOf(k) {
	case protowire.VarintType:
		_, n := protowire.ConsumeVarint(b)
		return n
	case protowire.Fixed32Type:
		_, n := protowire.ConsumeFixed32(b)
		return n
	case protowire.Fixed64Type:
		_, n := protowire.ConsumeFixed64(b)
		return n
	}
	return -1
}

func pathSegment(num protowire.Number, fd protoreflect.FieldDescriptor, index int) string {
	if fd == nil {
		return strconv.Itoa(int(num)) + "[" + strconv.Itoa(index) + "]"
	}
	if fd.IsList() || fd.IsMap() {
		return fieldName(fd) + "[" + strconv.Itoa(index) + "]"
	}
	return fieldName(fd)
}

func joinPath(path, seg string) string {
	if path == "" {
		return seg
	}
	return path + "." + seg
}

// orTop names the message itself when the difference is at its top.
func orTop(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

func offsets(got, want int) string {
	if got == want {
		return "offset " + strconv.Itoa(got)
	}
	return fmt.Sprintf("offset %d (want offset %d)", got, want)
}

// short describes a record of a message of type md in one line.
func short(r *record, md protoreflect.MessageDescriptor, find fieldFinder) string {
	switch {
	case r == nil:
		return "end of message"
	case r.garbage != nil:
		return fmt.Sprintf("undecodable bytes %s (%v)", hexString(r.raw), r.garbage)
	}
	fd := find(md, r.num)
	head := fieldLabel(r.num, fd) + " "
	switch r.typ {
	case protowire.VarintType:
		return head + "VARINT " + varintText(r.v, fd)
	case protowire.Fixed32Type:
		return head + "I32 " + fixed32Text(uint32(r.v), fd)
	case protowire.Fixed64Type:
		return head + "I64 " + fixed64Text(r.v, fd)
	case protowire.StartGroupType:
		return head + fmt.Sprintf("GROUP (%d bytes) %s", len(r.val), hexString(r.val))
	}
	s := head + fmt.Sprintf("LEN %d ", len(r.val))
	if fd != nil && fd.Kind() == protoreflect.MessageKind {
		return s + hexString(r.val)
	}
	return s + bytesText(r.val, fd)
}
