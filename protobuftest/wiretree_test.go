package protobuftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/gofeaturespb"
	"google.golang.org/protobuf/types/known/structpb"
)

// wtBytes builds wire bytes from a list of appenders.
func wtBytes(parts ...func([]byte) []byte) []byte {
	var b []byte
	for _, p := range parts {
		b = p(b)
	}
	return b
}

func wtVarint(num protowire.Number, v uint64) func([]byte) []byte {
	return func(b []byte) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
}

func wtLen(num protowire.Number, v []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
}

func wtFixed32(num protowire.Number, v uint32) func([]byte) []byte {
	return func(b []byte) []byte {
		return protowire.AppendFixed32(protowire.AppendTag(b, num, protowire.Fixed32Type), v)
	}
}

func wtFixed64(num protowire.Number, v uint64) func([]byte) []byte {
	return func(b []byte) []byte {
		return protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), v)
	}
}

func wtGroup(num protowire.Number, body []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.StartGroupType)
		b = append(b, body...)
		return protowire.AppendTag(b, num, protowire.EndGroupType)
	}
}

func wtRaw(raw ...byte) func([]byte) []byte {
	return func(b []byte) []byte { return append(b, raw...) }
}

func TestWireTreeNoDescriptor(t *testing.T) {
	b := wtBytes(
		wtVarint(1, 150),
		wtLen(2, []byte("testing")),
		wtLen(3, wtBytes(wtVarint(1, 1), wtLen(2, nil))),
		wtGroup(4, wtBytes(wtFixed32(5, 0x3f800000))),
		wtFixed64(6, 1),
		wtVarint(7, 1<<64-1),
		wtLen(8, []byte{0xff, 0x00}),
		wtLen(9, nil),
	)
	want := strings.Join([]string{
		"     0  1 VARINT 150",
		`     3  2 LEN 7 "testing"`,
		"    12  3 LEN 4 {",
		"    14    1 VARINT 1",
		`    16    2 LEN 0 ""`,
		"        }",
		"    18  4 GROUP {",
		"    19    5 I32 0x3f800000 (1065353216, 1)",
		"        }",
		"    25  6 I64 0x0000000000000001 (1, 5e-324)",
		"    34  7 VARINT 18446744073709551615 (-1)",
		"    45  8 LEN 2 0xff00",
		`    49  9 LEN 0 ""`,
	}, "\n")
	if got := WireTree(b, nil); got != want {
		t.Errorf("WireTree:\n%s\nwant:\n%s", got, want)
	}
	if got := WireTree(nil, nil); got != "        (empty)" {
		t.Errorf("WireTree(nil) = %q", got)
	}
}

func TestWireTreeDescriptor(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("a.proto"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("M"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name:   proto.String("x"),
				Number: proto.Int32(1),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_SINT32.Enum(),
			}},
		}},
		Options: &descriptorpb.FileOptions{Features: &descriptorpb.FeatureSet{
			FieldPresence: descriptorpb.FeatureSet_FieldPresence(77).Enum(),
		}},
		SourceCodeInfo: &descriptorpb.SourceCodeInfo{Location: []*descriptorpb.SourceCodeInfo_Location{{
			Path: []int32{4, 0, 2, -1},
		}}},
	}
	proto.SetExtension(fdp.Options.Features, gofeaturespb.E_Go,
		&gofeaturespb.GoFeatures{LegacyUnmarshalJsonEnum: proto.Bool(true)})
	b, err := proto.Marshal(fdp)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`     0  1 name LEN 7 "a.proto"`,
		"     9  4 message_type LEN 12 {",
		`    11    1 name LEN 1 "M"`,
		"    14    2 field LEN 7 {",
		`    16      1 name LEN 1 "x"`,
		"    19      3 number VARINT 1",
		"    21      5 type VARINT 17 (TYPE_SINT32)",
		"          }",
		"        }",
		"    23  8 options LEN 10 {",
		"    25    50 features LEN 7 {",
		"    28      1002 [pb.go] LEN 2 {",
		"    31        1 legacy_unmarshal_json_enum VARINT true",
		"            }",
		"    33      1 field_presence VARINT 77 (undeclared)",
		"          }",
		"        }",
		"    35  9 source_code_info LEN 17 {",
		"    37    1 location LEN 15 {",
		"    39      1 path LEN 13 packed [4, 0, 2, -1]",
		"          }",
		"        }",
	}, "\n")
	if got := WireTree(b, fdp.ProtoReflect().Descriptor()); got != want {
		t.Errorf("WireTree:\n%s\nwant:\n%s", got, want)
	}

	// Maps, doubles, strings and a bytes field that looks like a message.
	s, err := structpb.NewStruct(map[string]any{"a": 0.0, "b": "x\ny"})
	if err != nil {
		t.Fatal(err)
	}
	b, err = proto.MarshalOptions{Deterministic: true}.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Join([]string{
		"     0  1 fields LEN 14 {",
		`     2    1 key LEN 1 "a"`,
		"     5    2 value LEN 9 {",
		"     7      2 number_value I64 0 (0x0000000000000000)",
		"          }",
		"        }",
		"    16  1 fields LEN 10 {",
		`    18    1 key LEN 1 "b"`,
		"    21    2 value LEN 5 {",
		`    23      3 string_value LEN 3 "x\ny"`,
		"          }",
		"        }",
	}, "\n")
	if got := WireTree(b, s.ProtoReflect().Descriptor()); got != want {
		t.Errorf("WireTree:\n%s\nwant:\n%s", got, want)
	}
}

func TestWireTreeGarbage(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want string // a substring of the last line
	}{
		{"truncated varint", wtBytes(wtVarint(1, 1), wtRaw(0x08, 0xff)), "     2  undecodable (unexpected EOF): 08ff"},
		{"length past end", wtBytes(wtRaw(0x12, 0x05, 'a')), "undecodable (unexpected EOF): 120561"},
		{"stray end group", wtBytes(wtVarint(1, 1), wtRaw(0x0c)), "undecodable (unexpected wire type 4 for field 1): 0c"},
		{"wire type 6", []byte{0x0e, 0x01}, "undecodable"},
		{"field number 0", []byte{0x00, 0x01}, "undecodable"},
		{"unterminated group", []byte{0x0b, 0x08, 0x01}, "undecodable"},
		{"mismatched end group", []byte{0x0b, 0x14}, "undecodable"},
		{"huge length", []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}, "undecodable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := WireTree(tc.b, nil)
			lines := strings.Split(got, "\n")
			if !strings.Contains(lines[len(lines)-1], tc.want) {
				t.Errorf("WireTree:\n%s\nwant last line containing %q", got, tc.want)
			}
		})
	}

	// A message field holding bytes that do not parse is shown as hex
	// under its name.
	md := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	got := WireTree(wtBytes(wtLen(4, []byte{0x0a, 0x09})), md)
	want := "     0  4 message_type LEN 2 {\n     2    undecodable (unexpected EOF): 0a09\n        }"
	if got != want {
		t.Errorf("WireTree:\n%s\nwant:\n%s", got, want)
	}
}

// TestWireNeverPanics feeds random and mutated bytes to WireTree and
// FirstDiff.
func TestWireNeverPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	md := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	valid := make([][]byte, 0, 20)
	for seed := range uint64(20) {
		m := (&descriptorpb.FileDescriptorProto{}).ProtoReflect()
		Fill(m, seed, RandOptions{Unknown: true})
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
		if err != nil {
			t.Fatal(err)
		}
		valid = append(valid, b)
	}
	for i := range 3000 {
		var b []byte
		if i%2 == 0 {
			b = make([]byte, r.IntN(40))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		} else {
			b = bytes.Clone(valid[r.IntN(len(valid))])
			if len(b) > 0 {
				for range 1 + r.IntN(3) {
					b[r.IntN(len(b))] = byte(r.Uint32())
				}
				b = b[:r.IntN(len(b)+1)]
			}
		}
		for _, d := range []protoreflect.MessageDescriptor{nil, md} {
			_ = WireTree(b, d)
			other := valid[r.IntN(len(valid))]
			if FirstDiff(b, other, d) == "" && !bytes.Equal(b, other) {
				t.Fatalf("FirstDiff found no difference between %x and %x", b, other)
			}
			if FirstDiff(other, b, d) == "" && !bytes.Equal(b, other) {
				t.Fatalf("FirstDiff found no difference between %x and %x", other, b)
			}
			if FirstDiff(b, bytes.Clone(b), d) != "" {
				t.Fatalf("FirstDiff of equal bytes %x", b)
			}
		}
	}
}

func TestFirstDiffPaths(t *testing.T) {
	fdMD := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	structMD := (&structpb.Struct{}).ProtoReflect().Descriptor()

	file := func(edit func(*descriptorpb.FileDescriptorProto)) []byte {
		t.Helper()
		f := &descriptorpb.FileDescriptorProto{
			Name: proto.String("a.proto"),
			MessageType: []*descriptorpb.DescriptorProto{
				{Name: proto.String("A")},
				{Name: proto.String("B"), Field: []*descriptorpb.FieldDescriptorProto{
					{Name: proto.String("f0")}, {Name: proto.String("f1")}, {Name: proto.String("f2"), Number: proto.Int32(3)},
				}},
			},
			SourceCodeInfo: &descriptorpb.SourceCodeInfo{Location: []*descriptorpb.SourceCodeInfo_Location{
				{Path: []int32{1}}, {Path: []int32{4, 1, 2, 2}},
			}},
			Options: &descriptorpb.FileOptions{Features: &descriptorpb.FeatureSet{}},
		}
		proto.SetExtension(f.Options.Features, gofeaturespb.E_Go, &gofeaturespb.GoFeatures{})
		if edit != nil {
			edit(f)
		}
		b, err := proto.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	base := file(nil)

	for _, tc := range []struct {
		name      string
		got, want []byte
		md        protoreflect.MessageDescriptor
		diff      string // the whole FirstDiff result, or a prefix ending in "..."
	}{
		{"equal", base, base, fdMD, ""},
		{"both empty", nil, []byte{}, nil, ""},
		{
			"nested string", file(func(f *descriptorpb.FileDescriptorProto) {
				f.MessageType[1].Field[2].Name = proto.String("fX")
			}), base, fdMD,
			`message_type[1].field[2].name (field 1) at offset 33: got 1 name LEN 2 "fX", want 1 name LEN 2 "f2"`,
		},
		{
			"nested string without descriptor", file(func(f *descriptorpb.FileDescriptorProto) {
				f.MessageType[1].Field[2].Name = proto.String("fX")
			}), base, nil,
			`4[1].2[2].1 at offset 33: got 1 LEN 2 "fX", want 1 LEN 2 "f2"`,
		},
		{
			"nested varint", file(func(f *descriptorpb.FileDescriptorProto) {
				f.MessageType[1].Field[2].Number = proto.Int32(300)
			}), base, fdMD,
			"message_type[1].field[2].number (field 3) at offset 37: got 3 number VARINT 300, want 3 number VARINT 3",
		},
		{
			"packed element", file(func(f *descriptorpb.FileDescriptorProto) {
				f.SourceCodeInfo.Location[1].Path[2] = -7
			}), base, fdMD,
			"source_code_info.location[1].path[2] (field 1) at offset ...",
		},
		{
			"extension", file(func(f *descriptorpb.FileDescriptorProto) {
				proto.SetExtension(f.Options.Features, gofeaturespb.E_Go,
					&gofeaturespb.GoFeatures{LegacyUnmarshalJsonEnum: proto.Bool(false)})
			}), base, fdMD,
			"options.features.[pb.go].legacy_unmarshal_json_enum (field 1) at offset ...",
		},
		{
			"missing record", file(func(f *descriptorpb.FileDescriptorProto) {
				f.MessageType[1].Field = f.MessageType[1].Field[:2]
			}), base, fdMD,
			"message_type[1].field[2] (field 2) at offset 31: got end of message, want 2 field LEN 6 0a0266321803",
		},
		{
			"extra record", base, file(func(f *descriptorpb.FileDescriptorProto) {
				f.MessageType = f.MessageType[:1]
			}), fdMD,
			// The path names want's record; got's is named after "got".
			"options (field 8) at offset 14: got 4 message_type LEN 23 ...",
		},
		{
			"top level", wtBytes(wtVarint(1, 1), wtVarint(2, 2)), wtBytes(wtVarint(1, 1), wtVarint(3, 2)), nil,
			"3 at offset 2: got 2 VARINT 2, want 3 VARINT 2",
		},
		{
			"repeated unknown number", wtBytes(wtVarint(1, 1), wtVarint(1, 2)), wtBytes(wtVarint(1, 1), wtVarint(1, 3)), nil,
			"1[1] at offset 2: got 1 VARINT 2, want 1 VARINT 3",
		},
		{
			"garbage in got", wtBytes(wtVarint(1, 1), wtRaw(0xff)), wtBytes(wtVarint(1, 1), wtVarint(2, 1)), nil,
			"2 at offset 2: got undecodable bytes ff (unexpected EOF), want 2 VARINT 1",
		},
		{
			"garbage in both", wtBytes(wtVarint(1, 1), wtRaw(0xff)), wtBytes(wtVarint(1, 1), wtRaw(0xfe)), nil,
			"(top level) at offset 2: got undecodable bytes ff (unexpected EOF), want undecodable bytes fe (unexpected EOF)",
		},
		{
			"nested length changes offsets",
			wtBytes(wtLen(1, wtBytes(wtLen(2, bytes.Repeat([]byte("a"), 200)))), wtVarint(3, 1)),
			wtBytes(wtLen(1, wtBytes(wtLen(2, bytes.Repeat([]byte("a"), 100)))), wtVarint(3, 1)), nil,
			`1[0].2 at offset 3 (want offset 2): got 2 LEN 200 "aaaa...`,
		},
		{
			"group", wtBytes(wtGroup(5, wtBytes(wtVarint(1, 1), wtFixed32(2, 9)))),
			wtBytes(wtGroup(5, wtBytes(wtVarint(1, 1), wtFixed32(2, 8)))), nil,
			"5[0].2 at offset 3: got 2 I32 0x00000009 (9, 1.3e-44), want 2 I32 0x00000008 (8, 1.1e-44)",
		},
		{
			"map value", mustMarshal(t, mustStruct(t, map[string]any{"a": 1, "b": 2})),
			mustMarshal(t, mustStruct(t, map[string]any{"a": 1, "b": 3})), structMD,
			"fields[1].value.number_value (field 2) at offset 23: got 2 number_value I64 2 (0x4000000000000000), want 2 number_value I64 3 (0x4008000000000000)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FirstDiff(tc.got, tc.want, tc.md)
			if prefix, ok := strings.CutSuffix(tc.diff, "..."); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("FirstDiff = %q\nwant prefix %q", got, prefix)
				}
				return
			}
			if got != tc.diff {
				t.Errorf("FirstDiff = %q\nwant        %q", got, tc.diff)
			}
		})
	}
}

func mustStruct(t *testing.T, v map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTreeWindow(t *testing.T) {
	var lines []treeLine
	for i := range 100 {
		lines = append(lines, treeLine{off: i * 2, text: "x"})
	}
	got := treeWindow(lines, 101, 3)
	want := strings.Join([]string{
		"        ... (48 lines)",
		"    96  x",
		"    98  x",
		"   100  x",
		"   102  x",
		"   104  x",
		"   106  x",
		"   108  x",
		"        ... (45 more lines)",
	}, "\n")
	if got != want {
		t.Errorf("treeWindow:\n%s\nwant:\n%s", got, want)
	}
	if got := treeWindow(lines[:5], 0, 3); got != joinLines(lines[:5]) {
		t.Errorf("short tree was cut: %s", got)
	}
}

// Equivalent's checks and failure reports, tried on fake encoders built on
// proto.Marshal, correct and broken.

// fakeTB records failures; Fatalf ends the goroutine like testing.T does.
type fakeTB struct {
	testing.TB
	errors []string
	fatal  bool
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	f.fatal = true
	runtime.Goexit()
}

// runEquivalent runs equivalent with enc on a fakeTB.
func runEquivalent(t *testing.T, o CheckOptions, r Resolver, enc marshaler, msgs ...proto.Message) *fakeTB {
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		equivalent(f, o, r, enc, msgs)
	}()
	<-done
	return f
}

// fakeEncoder encodes with proto.Marshal and then misbehaves as told.
type fakeEncoder struct {
	o           CheckOptions
	dynamicPath bool                                   // encode a dynamicpb copy of the message
	edit        func([]byte) []byte                    // changes successful output
	sizeDelta   int                                    // added to Size
	err         func(m proto.Message, err error) error // replaces the error
	keepBytes   bool                                   // return proto.Marshal's bytes with its error
	editAppend  func(prefix, out []byte) []byte        // MarshalAppend result from the prefix and Marshal's output
}

func (f fakeEncoder) Marshal(m proto.Message) ([]byte, error) {
	if m != nil && f.dynamicPath && m.ProtoReflect().IsValid() {
		d := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
		copyMessage(d, m.ProtoReflect(), dynamicExtension)
		m = d
	}
	b, err := proto.MarshalOptions{AllowPartial: f.o.AllowPartial, Deterministic: f.o.Deterministic}.Marshal(m)
	if f.err != nil {
		err = f.err(m, err)
	}
	if err != nil {
		if f.keepBytes {
			return b, err
		}
		return nil, err
	}
	if f.edit != nil {
		b = f.edit(b)
	}
	return b, nil
}

func (f fakeEncoder) MarshalAppend(prefix []byte, m proto.Message) ([]byte, error) {
	b, err := f.Marshal(m)
	if err != nil {
		return prefix, err
	}
	if f.editAppend != nil {
		return f.editAppend(prefix, b), nil
	}
	if len(b) == 0 {
		return prefix, nil
	}
	return append(prefix, b...), nil
}

func (f fakeEncoder) Size(m proto.Message) int {
	return proto.Size(m) + f.sizeDelta
}

func TestEquivalentFakes(t *testing.T) {
	twins := rtTwins(t)
	fileTwin := twins[0] // google.protobuf.FileDescriptorProto
	if fileTwin.name != "google.protobuf.FileDescriptorProto" {
		t.Fatal(fileTwin.name)
	}
	g, d := NewPair(fileTwin.gen, fileTwin.dyn, fileTwin.genExts, fileTwin.dynExts, 7, RandOptions{Unknown: true})
	if proto.Size(g) < 500 {
		t.Fatalf("seed 7 gives a small message (%d bytes); pick another", proto.Size(g))
	}
	other, _ := NewPair(fileTwin.gen, fileTwin.dyn, fileTwin.genExts, fileTwin.dynExts, 8, RandOptions{})

	// A generated Struct with enough entries that default-mode map order
	// varies from call to call.
	fields := make(map[string]any)
	for i := range 12 {
		fields[fmt.Sprintf("k%02d", i)] = map[string]any{"x": float64(i), "y": fmt.Sprint(i), "z": []any{true, nil}}
	}
	st := mustStruct(t, fields)

	s := rtCompile(t)
	// rt.Req with its required fields unset, holding another such Req.
	reqR := rtMessageType(t, s.a, "rt.Req").New()
	nextFD := reqR.Descriptor().Fields().ByName("next")
	reqR.Set(nextFD, reqR.NewField(nextFD))
	req := reqR.Interface()
	empty := rtMessageType(t, s.a, "rt.Scalars3").New().Interface()

	det := CheckOptions{Deterministic: true}
	swapFirstTwo := func(b []byte) []byte {
		recs := parseRecords(b, 0)
		if len(recs) < 2 {
			return b
		}
		out := append([]byte(nil), recs[1].raw...)
		out = append(out, recs[0].raw...)
		return append(out, b[len(recs[0].raw)+len(recs[1].raw):]...)
	}
	for _, tc := range []struct {
		name  string
		o     CheckOptions
		enc   fakeEncoder
		msgs  []proto.Message
		want  []string // substrings, one per expected failure; none means success
		fatal bool
	}{
		{name: "correct", o: det, enc: fakeEncoder{o: det}, msgs: []proto.Message{g, d}},
		{name: "correct with nil entries", o: det, enc: fakeEncoder{o: det}, msgs: []proto.Message{nil, g, nil, d}},
		{name: "no messages", o: det, enc: fakeEncoder{o: det, sizeDelta: 1}, msgs: []proto.Message{nil}},
		{name: "correct on the dynamic path", o: det, enc: fakeEncoder{o: det, dynamicPath: true}, msgs: []proto.Message{g, d}},
		{name: "map order may vary", o: CheckOptions{}, enc: fakeEncoder{}, msgs: []proto.Message{st}},
		{name: "map order must not vary when deterministic", o: det, enc: fakeEncoder{}, msgs: []proto.Message{st},
			want: []string{"output differs from the reference at fields[",
				"appended different bytes than Marshal returned at fields[",
				"appended different bytes than Marshal returned at fields["}},
		{name: "field order", o: CheckOptions{}, enc: fakeEncoder{edit: swapFirstTwo}, msgs: []proto.Message{g},
			want: []string{"output differs from the reference (map entries sorted before comparing) at name (field 1) at offset 0"}},
		{name: "flipped byte", o: det, enc: fakeEncoder{o: det, edit: func(b []byte) []byte {
			b[len(b)-1] ^= 1
			return b
		}}, msgs: []proto.Message{g, d}, want: []string{
			"msgs[0] (*descriptorpb.FileDescriptorProto): protolayout output differs from the reference at ",
			"msgs[0] (*descriptorpb.FileDescriptorProto): proto.Unmarshal of protolayout's output is not proto.Equal to the input",
			"msgs[1] (*dynamicpb.Message): protolayout output differs from the reference at ",
			"msgs[1] (*dynamicpb.Message): proto.Unmarshal of protolayout's output is not proto.Equal to the input",
		}},
		{name: "dropped record", o: det, enc: fakeEncoder{o: det, edit: func(b []byte) []byte {
			return b[len(parseRecords(b, 0)[0].raw):]
		}}, msgs: []proto.Message{g}, want: []string{
			"output differs from the reference at name (field 1) at offset 0: got ",
			"Size = ",
			"is not proto.Equal to the input",
		}},
		{name: "size", o: det, enc: fakeEncoder{o: det, sizeDelta: 1}, msgs: []proto.Message{g, d},
			want: []string{"Size = ", "Size = "}},
		{name: "not twins", o: det, enc: fakeEncoder{o: det}, msgs: []proto.Message{g, other}, fatal: true,
			want: []string{"msgs[1] (*descriptorpb.FileDescriptorProto) is not a twin of msgs[0]"}},
		{name: "spurious error", o: det, enc: fakeEncoder{o: det, err: func(_ proto.Message, err error) error {
			return errors.Join(proto.Error, errors.New("spurious"))
		}}, msgs: []proto.Message{g}, want: []string{"protolayout failed, the reference succeeded"}},
		{name: "missing required error", o: det, enc: fakeEncoder{o: CheckOptions{Deterministic: true, AllowPartial: true}},
			msgs: []proto.Message{req}, want: []string{"protolayout succeeded, the reference failed: "}},
		{name: "required error", o: det, enc: fakeEncoder{o: det}, msgs: []proto.Message{req}},
		{name: "required allowed", o: CheckOptions{AllowPartial: true}, enc: fakeEncoder{o: CheckOptions{AllowPartial: true}},
			msgs: []proto.Message{req}},
		{name: "error not proto.Error", o: det, enc: fakeEncoder{o: det, err: func(_ proto.Message, err error) error {
			if err != nil {
				return errors.New("plain")
			}
			return nil
		}}, msgs: []proto.Message{req}, want: []string{"does not satisfy errors.Is(err, proto.Error)"}},
		{name: "bytes with error", o: det, enc: fakeEncoder{o: det, keepBytes: true}, msgs: []proto.Message{req},
			want: []string{"returned 2 bytes with its error"}},
		{name: "size on required error", o: det, enc: fakeEncoder{o: det, sizeDelta: 3}, msgs: []proto.Message{req},
			want: []string{"Size = 5, the AllowPartial reference is 2 bytes"}},
		{name: "prefix overwritten", o: det, enc: fakeEncoder{o: det, editAppend: func(prefix, out []byte) []byte {
			prefix[0] = 'X'
			return append(prefix, out...)
		}}, msgs: []proto.Message{g}, want: []string{"changed the prefix", "changed the prefix"}},
		{name: "prefix dropped", o: det, enc: fakeEncoder{o: det, editAppend: func(prefix, out []byte) []byte {
			return out
		}}, msgs: []proto.Message{g}, want: []string{"does not start with the prefix", "does not start with the prefix"}},
		{name: "appended twice", o: det, enc: fakeEncoder{o: det, editAppend: func(prefix, out []byte) []byte {
			return append(append(prefix, out...), out...)
		}}, msgs: []proto.Message{g}, want: []string{"appended different bytes", "appended different bytes"}},
		{name: "empty message as nil", o: det, enc: fakeEncoder{o: det, edit: func(b []byte) []byte {
			if len(b) == 0 {
				return nil
			}
			return b
		}}, msgs: []proto.Message{empty}, want: []string{"protolayout returned nil=true, the reference nil=false"}},
		{name: "empty append to nil", o: det, enc: fakeEncoder{o: det, editAppend: func(prefix, out []byte) []byte {
			if prefix == nil && len(out) == 0 {
				return []byte{}
			}
			return append(prefix, out...)
		}}, msgs: []proto.Message{empty}, want: []string{"MarshalAppend(nil) of an empty encoding = [], <nil>; want nil, nil"}},
		{name: "typed nil", o: det, enc: fakeEncoder{o: det}, msgs: []proto.Message{(*descriptorpb.FileDescriptorProto)(nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := runEquivalent(t, tc.o, nil, tc.enc, tc.msgs...)
			if f.fatal != tc.fatal {
				t.Errorf("fatal = %v, want %v", f.fatal, tc.fatal)
			}
			if len(f.errors) != len(tc.want) {
				t.Errorf("%d failures, want %d:\n%s", len(f.errors), len(tc.want), strings.Join(f.errors, "\n----\n"))
				return
			}
			for i, w := range tc.want {
				if !strings.Contains(f.errors[i], w) {
					t.Errorf("failure %d:\n%s\nwant it to contain %q", i, f.errors[i], w)
				}
			}
		})
	}
}

// TestEquivalentReport shows a whole failure message: FirstDiff, then
// both wire trees cut around the difference.
func TestEquivalentReport(t *testing.T) {
	m := &descriptorpb.FileDescriptorProto{Name: proto.String("report.proto")}
	for i := range 60 {
		m.MessageType = append(m.MessageType, &descriptorpb.DescriptorProto{
			Name: proto.String(fmt.Sprintf("Msg%02d", i)),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("a"), Number: proto.Int32(1)},
				{Name: proto.String("b"), Number: proto.Int32(2)},
			},
		})
	}
	det := CheckOptions{Deterministic: true}
	edit := func(b []byte) []byte {
		b[bytes.Index(b, []byte("Msg30"))+4] = 'X'
		return b
	}
	f := runEquivalent(t, det, nil, fakeEncoder{o: det, edit: edit}, m)
	if len(f.errors) == 0 {
		t.Fatal("no failure")
	}
	report := f.errors[0]
	for _, want := range []string{
		"msgs[0] (*descriptorpb.FileDescriptorProto): protolayout output differs from the reference at " +
			`message_type[30].name (field 1) at offset 706: got 1 name LEN 5 "Msg3X", want 1 name LEN 5 "Msg30"` + "\n",
		"\nprotolayout (1394 bytes):\n        ... (",
		`   706    1 name LEN 5 "Msg3X"`,
		"\nreference (1394 bytes):\n        ... (",
		`   706    1 name LEN 5 "Msg30"`,
		" more lines)",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if n := strings.Count(report, "\n"); n > 4*treeContext+10 {
		t.Errorf("report has %d lines", n)
	}
}

// TestEquivalentDynamicPathDivergence: a repeated string extension of a
// proto3 file holding invalid UTF-8 marshals on proto.Marshal's generated
// path and fails on its dynamic path; protolayout may follow either.
func TestEquivalentDynamicPathDivergence(t *testing.T) {
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(map[string]string{"x3.proto": `
syntax = "proto3";
package x3;
import "google/protobuf/descriptor.proto";
extend google.protobuf.MessageOptions { repeated string tags = 60001; }
`}),
		}),
	}
	compiled, err := c.Compile(context.Background(), "x3.proto")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(compiled[0]), protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	xt := dynamicpb.NewExtensionType(fd.Extensions().Get(0))
	m := &descriptorpb.MessageOptions{}
	l := m.ProtoReflect().Mutable(xt.TypeDescriptor()).List()
	l.Append(protoreflect.ValueOfString("a\xffb"))

	if _, err := (proto.MarshalOptions{Deterministic: true}).Marshal(m); err != nil {
		t.Skipf("the generated path validates now (%v); the divergence is gone", err)
	}
	if dynamicPathError(m, false) == nil {
		t.Skip("the dynamic path does not validate; the divergence is gone")
	}
	det := CheckOptions{Deterministic: true}
	for _, enc := range []fakeEncoder{{o: det}, {o: det, dynamicPath: true}} {
		if f := runEquivalent(t, det, nil, enc, m); len(f.errors) > 0 {
			t.Errorf("dynamicPath=%v: %s", enc.dynamicPath, strings.Join(f.errors, "\n"))
		}
	}
	// An encoder that fails anyway is held to the dynamic path, which does
	// not fail without the invalid string.
	l.Set(0, protoreflect.ValueOfString("ab"))
	failing := fakeEncoder{o: det, err: func(proto.Message, error) error { return proto.Error }}
	if f := runEquivalent(t, det, nil, failing, m); len(f.errors) != 1 {
		t.Errorf("failures: %q", f.errors)
	}
}

// TestExtensionsIn checks that the round-trip resolver finds extension
// types set deep inside a message, and falls back to the next resolver.
func TestExtensionsIn(t *testing.T) {
	tw := rtTwins(t)[0]
	found := 0
	for seed := range uint64(50) {
		_, d := NewPair(tw.gen, tw.dyn, tw.genExts, tw.dynExts, seed, RandOptions{})
		res := extensionsIn(d, new(protoregistry.Types)) // no fallback
		for _, xt := range tw.dynExts {
			xd := xt.TypeDescriptor()
			got, err := res.FindExtensionByNumber(xd.ContainingMessage().FullName(), xd.Number())
			if err != nil {
				continue // not set in this message
			}
			if got != xt {
				t.Fatalf("seed %d: %v resolved to %v", seed, xd.FullName(), got)
			}
			if byName, err := res.FindExtensionByName(xd.FullName()); err != nil || byName != xt {
				t.Fatalf("seed %d: by name %v: %v, %v", seed, xd.FullName(), byName, err)
			}
			found++
		}
	}
	if found == 0 {
		t.Error("no extension found in 50 messages")
	}
	res := extensionsIn(&descriptorpb.FileDescriptorProto{}, protoregistry.GlobalTypes)
	if xt, err := res.FindExtensionByName(gofeaturespb.E_Go.TypeDescriptor().FullName()); err != nil || xt != gofeaturespb.E_Go {
		t.Errorf("fallback: %v, %v", xt, err)
	}
}

// TestCanonicalMaps checks that map entries are sorted at every level and
// nothing else moves.
func TestCanonicalMaps(t *testing.T) {
	fields := make(map[string]any)
	for i := range 10 {
		fields[fmt.Sprint(i)] = map[string]any{"a": 1.0, "b": 2.0, "c": map[string]any{"d": "e", "f": "g"}}
	}
	st := mustStruct(t, fields)
	md := st.ProtoReflect().Descriptor()
	want := mustMarshal(t, st)
	varied := false
	for range 20 {
		b, err := proto.Marshal(st) // random map order
		if err != nil {
			t.Fatal(err)
		}
		varied = varied || !bytes.Equal(b, want)
		if !bytes.Equal(canonicalMaps(b, md, globalFields, 0), canonicalMaps(want, md, globalFields, 0)) {
			t.Fatalf("canonical forms differ at %s", FirstDiff(canonicalMaps(b, md, globalFields, 0), canonicalMaps(want, md, globalFields, 0), md))
		}
	}
	if !varied {
		t.Error("proto.Marshal gave the same map order 20 times")
	}
	// Not a map: order is kept.
	b := wtBytes(wtVarint(2, 1), wtVarint(1, 1), wtRaw(0xff))
	if got := canonicalMaps(b, md, globalFields, 0); !bytes.Equal(got, b) {
		t.Errorf("canonicalMaps(%x) = %x", b, got)
	}
}
