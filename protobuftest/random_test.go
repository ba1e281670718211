package protobuftest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/gofeaturespb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"google.golang.org/protobuf/types/pluginpb"
)

// rtCopyFiles builds an independent copy (new descriptors, same shape) of
// each file in fds and of everything it imports.
func rtCopyFiles(t testing.TB, fds ...protoreflect.FileDescriptor) *protoregistry.Files {
	t.Helper()
	files := new(protoregistry.Files)
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if _, err := files.FindFileByPath(fd.Path()); err == nil {
			return
		}
		imports := fd.Imports()
		for i := 0; i < imports.Len(); i++ {
			add(imports.Get(i).FileDescriptor)
		}
		copied, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(fd), files)
		if err != nil {
			t.Fatalf("copying %s: %v", fd.Path(), err)
		}
		if err := files.RegisterFile(copied); err != nil {
			t.Fatalf("registering %s: %v", fd.Path(), err)
		}
	}
	for _, fd := range fds {
		add(fd)
	}
	return files
}

// rtTestProtos is a schema written for the random builder's tests: every
// kind, proto2 groups, closed enums, required fields, defaults and
// extensions (including a group and a message extension), maps with every
// key kind, oneofs, proto3 implicit presence and editions features.
var rtTestProtos = map[string]string{
	"rt/p2.proto": `
syntax = "proto2";
package rt;

enum Closed { C_ZERO = 0; C_ONE = 1; C_BIG = 1000; C_NEG = -2; }

message Scalars2 {
  optional int32 f_int32 = 1;
  optional int64 f_int64 = 2;
  optional uint32 f_uint32 = 3;
  optional uint64 f_uint64 = 4;
  optional sint32 f_sint32 = 5;
  optional sint64 f_sint64 = 6;
  optional fixed32 f_fixed32 = 7;
  optional fixed64 f_fixed64 = 8;
  optional sfixed32 f_sfixed32 = 9;
  optional sfixed64 f_sfixed64 = 10;
  optional float f_float = 11;
  optional double f_double = 12;
  optional bool f_bool = 13;
  optional string f_string = 14 [default = "dflt"];
  optional bytes f_bytes = 15 [default = "bb"];
  optional Closed f_enum = 16 [default = C_ONE];
  repeated int32 r_int32 = 31;
  repeated sint64 r_sint64 = 32 [packed = true];
  repeated double r_double = 33 [packed = true];
  repeated string r_string = 34;
  repeated bytes r_bytes = 35;
  repeated Closed r_enum = 36;
  repeated fixed32 r_fixed32 = 37;
  repeated bool r_bool = 38 [packed = true];
  optional group G = 40 { optional int32 a = 41; optional string b = 42; optional Scalars2 rec = 43; }
  repeated group RG = 44 { optional int64 c = 45; }
  optional Scalars2 child = 50;
  repeated Scalars2 children = 51;
  optional Req req = 52;
  oneof choice {
    int32 o_int32 = 60;
    string o_string = 61;
    bytes o_bytes = 62;
    Scalars2 o_msg = 63;
    Closed o_enum = 64;
    group OGroup = 65 { optional uint32 d = 66; }
  }
  oneof second { double o_double = 70; bool o_bool = 71; }
  map<int32, string> m_int32 = 80;
  map<int64, bytes> m_int64 = 81;
  map<uint32, Closed> m_uint32 = 82;
  map<uint64, Scalars2> m_uint64 = 83;
  map<sint32, float> m_sint32 = 84;
  map<sint64, double> m_sint64 = 85;
  map<fixed32, bool> m_fixed32 = 86;
  map<fixed64, sint64> m_fixed64 = 87;
  map<sfixed32, uint64> m_sfixed32 = 88;
  map<sfixed64, fixed32> m_sfixed64 = 89;
  map<bool, int32> m_bool = 90;
  map<string, string> m_string = 91;
  map<string, Req> m_req = 92;
  extensions 1000 to 1999;
  extensions 100000 to max;
}

message Req {
  required int32 id = 1;
  required string name = 2;
  optional Req next = 3;
}

message ExtMsg {
  optional int32 x = 1;
  repeated string names = 2;
  map<string, int64> counts = 3;
}

extend Scalars2 {
  optional int32 x_int32 = 1000;
  optional sint64 x_sint64 = 1001;
  optional string x_string = 1002;
  optional bytes x_bytes = 1003;
  optional Closed x_enum = 1004;
  optional double x_double = 1005;
  repeated int32 x_r_int32 = 1006;
  repeated fixed64 x_r_fixed64 = 1007 [packed = true];
  repeated string x_r_string = 1008;
  optional ExtMsg x_msg = 1009;
  repeated ExtMsg x_r_msg = 1010;
  optional group XGroup = 1011 { optional int32 g = 1; }
  optional bool x_bool = 536870911;
}
`,
	"rt/p3.proto": `
syntax = "proto3";
package rt;

enum Open { O_ZERO = 0; O_ONE = 1; O_NEG = -5; }

message Scalars3 {
  int32 f_int32 = 1;
  int64 f_int64 = 2;
  uint32 f_uint32 = 3;
  uint64 f_uint64 = 4;
  sint32 f_sint32 = 5;
  sint64 f_sint64 = 6;
  fixed32 f_fixed32 = 7;
  fixed64 f_fixed64 = 8;
  sfixed32 f_sfixed32 = 9;
  sfixed64 f_sfixed64 = 10;
  float f_float = 11;
  double f_double = 12;
  bool f_bool = 13;
  string f_string = 14;
  bytes f_bytes = 15;
  Open f_enum = 16;
  optional int32 p_int32 = 17;
  optional string p_string = 18;
  optional bytes p_bytes = 19;
  optional double p_double = 20;
  repeated int32 r_int32 = 31;
  repeated uint64 r_uint64 = 32;
  repeated float r_float = 33;
  repeated Open r_enum = 34;
  repeated string r_string = 35;
  repeated sint32 r_sint32 = 36 [packed = false];
  Scalars3 child = 40;
  repeated Scalars3 children = 41;
  oneof choice {
    uint32 o_uint32 = 50;
    string o_string = 51;
    bytes o_bytes = 52;
    Scalars3 o_msg = 53;
    Open o_enum = 54;
    float o_float = 55;
  }
  map<string, Scalars3> m_msg = 60;
  map<int32, Open> m_enum = 61;
  map<bool, bytes> m_bool = 62;
  map<uint64, string> m_uint64 = 63;
}
`,
	"rt/ed.proto": `
edition = "2023";
package rt;

enum EdClosed {
  option features.enum_type = CLOSED;
  E_ONE = 1;
  E_TWO = 2;
}

message Editions {
  int32 a = 1;
  int32 implicit = 2 [features.field_presence = IMPLICIT];
  string s = 3 [features.utf8_validation = NONE];
  Editions delimited = 4 [features.message_encoding = DELIMITED];
  repeated Editions r_delimited = 5 [features.message_encoding = DELIMITED];
  repeated int32 expanded = 6 [features.repeated_field_encoding = EXPANDED];
  repeated int32 packed = 7;
  EdClosed e = 8;
  int64 req = 9 [features.field_presence = LEGACY_REQUIRED];
  map<string, Editions> m = 10;
  oneof o { int32 o_a = 11; Editions o_msg = 12; }
}
`,
}

// rtSchema holds the test schema compiled twice, as two independent sets
// of descriptors.
type rtSchema struct {
	a, b *protoregistry.Files
}

func rtCompile(t testing.TB) rtSchema {
	t.Helper()
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(rtTestProtos),
		}),
	}
	names := []string{"rt/p2.proto", "rt/p3.proto", "rt/ed.proto"}
	compiled, err := c.Compile(context.Background(), names...)
	if err != nil {
		t.Fatalf("compiling test schema: %v", err)
	}
	build := func() *protoregistry.Files {
		files := new(protoregistry.Files)
		for _, f := range compiled {
			fd, err := protodesc.NewFile(protodesc.ToFileDescriptorProto(f), files)
			if err != nil {
				t.Fatalf("building %s: %v", f.Path(), err)
			}
			if err := files.RegisterFile(fd); err != nil {
				t.Fatal(err)
			}
		}
		return files
	}
	return rtSchema{a: build(), b: build()}
}

// rtExtensions returns dynamic extension types for every extension
// declared in files.
func rtExtensions(files *protoregistry.Files) []protoreflect.ExtensionType {
	var xts []protoreflect.ExtensionType
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		var walk func(xds protoreflect.ExtensionDescriptors, mds protoreflect.MessageDescriptors)
		walk = func(xds protoreflect.ExtensionDescriptors, mds protoreflect.MessageDescriptors) {
			for i := 0; i < xds.Len(); i++ {
				xts = append(xts, dynamicpb.NewExtensionType(xds.Get(i)))
			}
			for i := 0; i < mds.Len(); i++ {
				walk(mds.Get(i).Extensions(), mds.Get(i).Messages())
			}
		}
		walk(fd.Extensions(), fd.Messages())
		return true
	})
	return xts
}

func rtMessageType(t testing.TB, files *protoregistry.Files, name protoreflect.FullName) protoreflect.MessageType {
	t.Helper()
	d, err := files.FindDescriptorByName(name)
	if err != nil {
		t.Fatalf("finding %s: %v", name, err)
	}
	return dynamicpb.NewMessageType(d.(protoreflect.MessageDescriptor))
}

// rtOptionExtProto declares extensions of descriptor.proto's options
// messages, to be set on generated and dynamic descriptor messages.
const rtOptionExtProto = `
syntax = "proto2";
package rtopt;
import "google/protobuf/descriptor.proto";

message OptMsg {
  optional string label = 1;
  repeated int32 values = 2;
  optional OptMsg inner = 3;
}

extend google.protobuf.FileOptions {
  optional int32 file_int = 50001;
  repeated string file_tags = 50002;
  optional OptMsg file_msg = 50003;
}
extend google.protobuf.MessageOptions {
  optional bytes msg_bytes = 50001;
  repeated OptMsg msg_list = 50002;
  repeated sint32 msg_packed = 50003 [packed = true];
}
extend google.protobuf.FieldOptions {
  optional double field_double = 50001;
  optional group FieldGroup = 50002 { optional uint64 u = 1; }
}
`

// rtTwin is a generated message type and its dynamic twin.
type rtTwin struct {
	name             string
	gen, dyn         protoreflect.MessageType
	genExts, dynExts []protoreflect.ExtensionType
}

// rtTwins returns generated/dynamic twins of several generated types from
// the protobuf module, with generated and dynamic extensions on both.
func rtTwins(t testing.TB) []rtTwin {
	t.Helper()
	copies := rtCopyFiles(t,
		descriptorpb.File_google_protobuf_descriptor_proto,
		gofeaturespb.File_google_protobuf_go_features_proto,
		pluginpb.File_google_protobuf_compiler_plugin_proto,
		structpb.File_google_protobuf_struct_proto,
		anypb.File_google_protobuf_any_proto,
		timestamppb.File_google_protobuf_timestamp_proto,
		typepb.File_google_protobuf_type_proto,
		apipb.File_google_protobuf_api_proto,
		wrapperspb.File_google_protobuf_wrappers_proto,
	)

	// Option extensions: compiled once, then built against the generated
	// descriptor.proto and against the copy.
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(map[string]string{"rtopt.proto": rtOptionExtProto}),
		}),
	}
	compiled, err := c.Compile(context.Background(), "rtopt.proto")
	if err != nil {
		t.Fatalf("compiling option extensions: %v", err)
	}
	optFDP := protodesc.ToFileDescriptorProto(compiled[0])
	optExts := func(r protodesc.Resolver) []protoreflect.ExtensionType {
		fd, err := protodesc.NewFile(optFDP, r)
		if err != nil {
			t.Fatalf("building option extensions: %v", err)
		}
		files := new(protoregistry.Files)
		if err := files.RegisterFile(fd); err != nil {
			t.Fatal(err)
		}
		return rtExtensions(files)
	}
	genExts := append(optExts(protoregistry.GlobalFiles), gofeaturespb.E_Go)
	dynGo, err := copies.FindDescriptorByName(gofeaturespb.E_Go.TypeDescriptor().FullName())
	if err != nil {
		t.Fatal(err)
	}
	dynExts := append(optExts(copies), dynamicpb.NewExtensionType(dynGo.(protoreflect.ExtensionDescriptor)))

	var twins []rtTwin
	for _, m := range []proto.Message{
		&descriptorpb.FileDescriptorProto{},
		&descriptorpb.FileDescriptorSet{},
		&pluginpb.CodeGeneratorRequest{},
		&structpb.Struct{},
		&structpb.Value{},
		&anypb.Any{},
		&timestamppb.Timestamp{},
		&typepb.Type{},
		&apipb.Api{},
		&wrapperspb.BytesValue{},
	} {
		gen := m.ProtoReflect().Type()
		name := gen.Descriptor().FullName()
		twins = append(twins, rtTwin{
			name:    string(name),
			gen:     gen,
			dyn:     rtMessageType(t, copies, name),
			genExts: genExts,
			dynExts: dynExts,
		})
	}
	return twins
}

func rtMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatalf("proto.Marshal of a filled %v: %v", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return b
}

// TestFillTwins checks that Fill gives generated and dynamic twins the same
// content: equal deterministic bytes and sizes, for 200 seeds per type.
func TestFillTwins(t *testing.T) {
	for _, tw := range rtTwins(t) {
		t.Run(tw.name, func(t *testing.T) {
			c := make(rtFeatures)
			for seed := range uint64(200) {
				g, d := NewPair(tw.gen, tw.dyn, tw.genExts, tw.dynExts, seed, RandOptions{Unknown: true})
				c.scan(g.ProtoReflect(), 0)
				gb, db := rtMarshal(t, g), rtMarshal(t, d)
				if !bytes.Equal(gb, db) {
					md := tw.gen.Descriptor()
					t.Fatalf("seed %d: generated and dynamic differ at %s\ngenerated:\n%s\ndynamic:\n%s",
						seed, FirstDiff(db, gb, md), WireTree(gb, md), WireTree(db, md))
				}
				if gs, ds := proto.Size(g), proto.Size(d); gs != len(gb) || ds != len(db) {
					t.Fatalf("seed %d: sizes %d and %d, encoded length %d", seed, gs, ds, len(gb))
				}
			}
			if tw.name == "google.protobuf.FileDescriptorProto" {
				// The generated side really holds extensions (generated
				// and dynamic types), groups in unknown fields and edge values.
				for _, k := range []string{"extension scalar", "extension repeated", "extension message",
					"unknown wire type 3", "double NaN", "enum undeclared closed", "string empty"} {
					if c[k] == 0 {
						t.Errorf("no %q in 200 seeds", k)
					}
				}
			}
		})
	}
}

// TestFillTwinsOwnSchema does the same for the hand-written schema, whose
// twins are two independent dynamic builds.
func TestFillTwinsOwnSchema(t *testing.T) {
	s := rtCompile(t)
	xa, xb := rtExtensions(s.a), rtExtensions(s.b)
	for _, name := range []protoreflect.FullName{"rt.Scalars2", "rt.Scalars3", "rt.Editions"} {
		t.Run(string(name), func(t *testing.T) {
			ta, tb := rtMessageType(t, s.a, name), rtMessageType(t, s.b, name)
			for seed := range uint64(200) {
				for _, opts := range []RandOptions{{Unknown: true}, {MaxDepth: 6, MaxList: 2, NoMaps: true}} {
					a, b := NewPair(ta, tb, xa, xb, seed, opts)
					ab, bb := rtMarshal(t, a), rtMarshal(t, b)
					if !bytes.Equal(ab, bb) {
						t.Fatalf("seed %d %+v: twins differ at %s", seed, opts, FirstDiff(bb, ab, ta.Descriptor()))
					}
				}
			}
		})
	}
}

// TestFillExtensionOrder checks that the order of opts.Extensions does not
// change the content.
func TestFillExtensionOrder(t *testing.T) {
	s := rtCompile(t)
	xts := rtExtensions(s.a)
	rev := make([]protoreflect.ExtensionType, len(xts))
	for i, xt := range xts {
		rev[len(xts)-1-i] = xt
	}
	mt := rtMessageType(t, s.a, "rt.Scalars2")
	for seed := range uint64(50) {
		a, b := NewPair(mt, mt, xts, rev, seed, RandOptions{})
		if !bytes.Equal(rtMarshal(t, a), rtMarshal(t, b)) {
			t.Fatalf("seed %d: extension list order changed the content", seed)
		}
	}
}

// TestFillDeterministicAndVaried checks that a seed always gives the same
// message and that different seeds give different ones.
func TestFillDeterministicAndVaried(t *testing.T) {
	s := rtCompile(t)
	xts := rtExtensions(s.a)
	for _, mt := range []protoreflect.MessageType{
		(&descriptorpb.FileDescriptorProto{}).ProtoReflect().Type(),
		rtMessageType(t, s.a, "rt.Scalars2"),
		rtMessageType(t, s.a, "rt.Scalars3"),
	} {
		seen := make(map[string]uint64)
		for seed := range uint64(100) {
			m1, m2 := mt.New(), mt.New()
			Fill(m1, seed, RandOptions{Unknown: true, Extensions: xts})
			Fill(m2, seed, RandOptions{Unknown: true, Extensions: xts})
			b1, b2 := rtMarshal(t, m1.Interface()), rtMarshal(t, m2.Interface())
			if !bytes.Equal(b1, b2) {
				t.Fatalf("%v seed %d: two fills differ", mt.Descriptor().FullName(), seed)
			}
			seen[string(b1)] = seed
		}
		// An empty message (every field left unset) can come up more than
		// once; anything else repeating means the seed is not used.
		if len(seen) < 95 {
			t.Errorf("%v: only %d distinct messages from 100 seeds", mt.Descriptor().FullName(), len(seen))
		}
	}
}

// rtFeatures records what a set of filled messages contains.
type rtFeatures map[string]int

func (c rtFeatures) scan(m protoreflect.Message, depth int) {
	c[fmt.Sprintf("depth %d", depth)]++
	md := m.Descriptor()
	for i := 0; i < md.Oneofs().Len(); i++ {
		od := md.Oneofs().Get(i)
		if od.IsSynthetic() {
			continue
		}
		if fd := m.WhichOneof(od); fd == nil {
			c["oneof unset"]++
		} else if v := m.Get(fd); !isMessageKind(fd) && v.Equal(rtZeroOf(fd)) {
			c["oneof zero member"]++
		} else if isMessageKind(fd) && !rtHasAny(v.Message()) {
			c["oneof empty message member"]++
		} else {
			c["oneof set member"]++
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.IsExtension() {
			switch {
			case fd.IsList():
				c["extension repeated"]++
			case isMessageKind(fd):
				c["extension message"]++
			default:
				c["extension scalar"]++
			}
		}
		if fd.Kind() == protoreflect.GroupKind {
			c["group"]++
		}
		switch {
		case fd.IsMap():
			c["map"]++
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if k.Value().Equal(rtZeroOf(fd.MapKey())) {
					c["map default key "+fd.MapKey().Kind().String()]++
				}
				if isMessageKind(fd.MapValue()) {
					if !rtHasAny(mv.Message()) {
						c["map default value"]++
					}
					c.scan(mv.Message(), depth+1)
				} else if mv.Equal(rtZeroOf(fd.MapValue())) {
					c["map default value"]++
				}
				return true
			})
		case fd.IsList():
			l := v.List()
			c[fmt.Sprintf("list len %d", l.Len())]++
			for j := 0; j < l.Len(); j++ {
				c.value(fd, l.Get(j), depth)
			}
		default:
			if !fd.HasPresence() {
				c["implicit set "+fd.Kind().String()]++
			}
			c.value(fd, v, depth)
		}
		return true
	})
	if u := m.GetUnknown(); len(u) > 0 {
		for len(u) > 0 {
			_, typ, n := protowire.ConsumeField(u)
			if n < 0 {
				c["unknown malformed"]++
				break
			}
			c[fmt.Sprintf("unknown wire type %d", typ)]++
			u = u[n:]
		}
	}
}

func (c rtFeatures) value(fd protoreflect.FieldDescriptor, v protoreflect.Value, depth int) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		c.scan(v.Message(), depth+1)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		x := v.Float()
		k := fd.Kind().String()
		switch {
		case math.IsNaN(x):
			c[k+" NaN"]++
		case math.IsInf(x, 1):
			c[k+" +Inf"]++
		case math.IsInf(x, -1):
			c[k+" -Inf"]++
		case x == 0 && math.Signbit(x):
			c[k+" -0"]++
		case x == math.SmallestNonzeroFloat64, x == math.SmallestNonzeroFloat32 && fd.Kind() == protoreflect.FloatKind:
			c[k+" denormal"]++
		case x == math.MaxFloat64, x == math.MaxFloat32 && fd.Kind() == protoreflect.FloatKind:
			c[k+" max"]++
		}
	case protoreflect.StringKind:
		s := v.String()
		if !utf8.ValidString(s) {
			c["string invalid UTF-8"]++
		}
		switch {
		case s == "":
			c["string empty"]++
		case strings.Contains(s, "😀"):
			c["string emoji"]++
		case strings.Contains(s, "日本"):
			c["string CJK"]++
		case s == "é":
			c["string é"]++
		}
		if len(s) >= 128 {
			c["string long"]++
		}
	case protoreflect.BytesKind:
		switch b := v.Bytes(); {
		case b == nil:
			c["bytes nil"]++
		case len(b) == 0:
			c["bytes empty"]++
		case len(b) >= 300:
			c["bytes long"]++
		}
	case protoreflect.EnumKind:
		if fd.Enum().Values().ByNumber(v.Enum()) == nil {
			if fd.Enum().IsClosed() {
				c["enum undeclared closed"]++
			} else {
				c["enum undeclared open"]++
			}
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		switch v.Int() {
		case math.MinInt32:
			c["int32 min"]++
		case math.MaxInt32:
			c["int32 max"]++
		case -1:
			c["int32 -1"]++
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		switch v.Int() {
		case math.MinInt64:
			c["int64 min"]++
		case math.MaxInt64:
			c["int64 max"]++
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if v.Uint() == math.MaxUint32 {
			c["uint32 max"]++
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if v.Uint() == math.MaxUint64 {
			c["uint64 max"]++
		}
	}
}

func rtZeroOf(fd protoreflect.FieldDescriptor) protoreflect.Value {
	return (&filler{}).zeroNonRandom(fd)
}

// zeroNonRandom is zero without the nil/empty bytes draw (for tests).
func (f *filler) zeroNonRandom(fd protoreflect.FieldDescriptor) protoreflect.Value {
	if fd.Kind() == protoreflect.BytesKind {
		return protoreflect.ValueOfBytes(nil)
	}
	return f.zero(fd)
}

func rtHasAny(m protoreflect.Message) bool {
	has := len(m.GetUnknown()) > 0
	m.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool {
		has = true
		return false
	})
	return has
}

// TestFillCoverage checks that the edge cases occur across 500 seeds.
func TestFillCoverage(t *testing.T) {
	s := rtCompile(t)
	xts := rtExtensions(s.a)
	c := make(rtFeatures)
	for _, name := range []protoreflect.FullName{"rt.Scalars2", "rt.Scalars3", "rt.Editions"} {
		mt := rtMessageType(t, s.a, name)
		for seed := range uint64(500) {
			m := mt.New()
			Fill(m, seed, RandOptions{Unknown: true, Extensions: xts})
			c.scan(m, 0)
		}
	}
	want := []string{
		"double NaN", "double -0", "double +Inf", "double -Inf", "double denormal", "double max",
		"float NaN", "float -0", "float +Inf", "float -Inf", "float denormal", "float max",
		"string empty", "string emoji", "string CJK", "string é", "string long",
		"bytes nil", "bytes empty", "bytes long",
		"enum undeclared closed", "enum undeclared open",
		"int32 min", "int32 max", "int32 -1", "int64 min", "int64 max", "uint32 max", "uint64 max",
		"map default key int32", "map default key int64", "map default key uint32", "map default key uint64",
		"map default key sint32", "map default key sint64", "map default key fixed32", "map default key fixed64",
		"map default key sfixed32", "map default key sfixed64", "map default key bool", "map default key string",
		"map default value",
		"oneof unset", "oneof zero member", "oneof empty message member", "oneof set member",
		"implicit set double", "implicit set float", "implicit set bytes", "implicit set string",
		"list len 1", "list len 4",
		"group", "extension scalar", "extension repeated", "extension message",
		"unknown wire type 0", "unknown wire type 1", "unknown wire type 2", "unknown wire type 3", "unknown wire type 5",
		"depth 3",
	}
	for _, k := range want {
		if c[k] == 0 {
			t.Errorf("no %q in 500 seeds", k)
		}
	}
	for _, k := range []string{"string invalid UTF-8", "unknown malformed", "depth 5", "list len 5"} {
		if c[k] != 0 {
			t.Errorf("%d occurrences of %q", c[k], k)
		}
	}
	if t.Failed() || testing.Verbose() {
		keys := make([]string, 0, len(c))
		for k := range c {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%-40s %d", k, c[k])
		}
	}
}

// TestFillOptions checks MaxDepth, MaxList, NoMaps, Unknown and Partial.
func TestFillOptions(t *testing.T) {
	s := rtCompile(t)
	mt := rtMessageType(t, s.a, "rt.Scalars2")
	partialSeen := false
	for seed := range uint64(300) {
		m := mt.New()
		Fill(m, seed, RandOptions{MaxDepth: 1, MaxList: 2, NoMaps: true})
		c := make(rtFeatures)
		c.scan(m, 0)
		for k, n := range c {
			switch {
			case strings.HasPrefix(k, "unknown"), k == "map", k == "list len 3", k == "depth 2" && !rtOnlyRequired(m):
				t.Fatalf("seed %d: %d times %q", seed, n, k)
			}
		}
		if err := proto.CheckInitialized(m.Interface()); err != nil {
			t.Fatalf("seed %d: required field unset without Partial: %v", seed, err)
		}
		// Without Partial every seed marshals without AllowPartial.
		m = mt.New()
		Fill(m, seed, RandOptions{MaxDepth: 4})
		if err := proto.CheckInitialized(m.Interface()); err != nil {
			t.Fatalf("seed %d: required field unset without Partial: %v", seed, err)
		}
		m = mt.New()
		Fill(m, seed, RandOptions{Partial: true})
		if proto.CheckInitialized(m.Interface()) != nil {
			partialSeen = true
		}
	}
	if !partialSeen {
		t.Error("Partial never left a required field unset in 300 seeds")
	}
}

// rtOnlyRequired reports whether every message two levels down holds only
// required fields, which Fill sets below MaxDepth.
func rtOnlyRequired(m protoreflect.Message) bool {
	ok := true
	var walk func(m protoreflect.Message, depth int)
	walk = func(m protoreflect.Message, depth int) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if depth >= 2 && fd.Cardinality() != protoreflect.Required {
				ok = false
			}
			if isMessageKind(fd) && !fd.IsList() && !fd.IsMap() {
				walk(v.Message(), depth+1)
			}
			if fd.IsList() && isMessageKind(fd) {
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message(), depth+1)
				}
			}
			return true
		})
	}
	walk(m, 0)
	return ok
}

// TestFillRoundTrip checks that filled messages marshal without error and
// unmarshal to equal messages (NaN equals NaN in proto.Equal).
func TestFillRoundTrip(t *testing.T) {
	s := rtCompile(t)
	xts := rtExtensions(s.a)
	resolver := new(protoregistry.Types)
	for _, xt := range xts {
		if err := resolver.RegisterExtension(xt); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []protoreflect.FullName{"rt.Scalars2", "rt.Scalars3", "rt.Editions"} {
		mt := rtMessageType(t, s.a, name)
		for seed := range uint64(200) {
			m := mt.New()
			Fill(m, seed, RandOptions{Unknown: true, Extensions: xts})
			b, err := proto.Marshal(m.Interface())
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			back := mt.New()
			if err := (proto.UnmarshalOptions{Resolver: resolver}).Unmarshal(b, back.Interface()); err != nil {
				t.Fatalf("%s seed %d: unmarshal: %v", name, seed, err)
			}
			if !proto.Equal(m.Interface(), back.Interface()) {
				t.Fatalf("%s seed %d: round trip not equal", name, seed)
			}
		}
	}
}

func TestFillPanicsOnInvalidMessage(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Fill of a nil message did not panic")
		}
	}()
	Fill((*descriptorpb.FileDescriptorProto)(nil).ProtoReflect(), 1, RandOptions{})
}
