package layout_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/runtime/protoimpl"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/layout"
)

// optOutFile builds, as generated code builds its descriptors, a proto3
// file whose string field "legacy" sets the legacy enforce_utf8 option
// (FieldOptions field 13) to false, beside a plain string field.
func optOutFile(t *testing.T) protoreflect.MessageDescriptor {
	opts := new(descriptorpb.FieldOptions)
	opts.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 13, protowire.VarintType), 0))
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("optout.proto"), Package: proto.String("lo"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("M"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("plain"), Number: proto.Int32(1), Label: opt, Type: str, JsonName: proto.String("plain")},
				{Name: proto.String("legacy"), Number: proto.Int32(2), Label: opt, Type: str, JsonName: proto.String("legacy"), Options: opts},
			},
		}},
	}
	raw, err := proto.Marshal(fdp)
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	out := protoimpl.DescBuilder{RawDescriptor: raw, TypeResolver: new(protoregistry.Types), FileRegistry: files}.Build()
	return out.File.Messages().Get(0)
}

// TestUTF8RuleFollowsProtobuf checks the UTF-8 rule against proto.Marshal
// on a field that opts out through the legacy option: validated in a
// default build, not validated in a build with the protolegacy tag, in
// both cases as proto.Marshal does. The CI script runs this test both
// ways.
func TestUTF8RuleFollowsProtobuf(t *testing.T) {
	md := optOutFile(t)
	l := layout.Of(md)
	for _, name := range []protoreflect.Name{"plain", "legacy"} {
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName(name), protoreflect.ValueOfString("\xff"))
		_, perr := proto.Marshal(m)
		_, eerr := encoder.Marshal(m)
		t.Logf("field %s: proto.Marshal error %v", name, perr)
		if (perr == nil) != (eerr == nil) {
			t.Errorf("field %s: proto.Marshal error %v, encoder error %v", name, perr, eerr)
		}
		if got := l.ByName(name).ValidateUTF8; got != (perr != nil) {
			t.Errorf("field %s: ValidateUTF8 = %v, proto.Marshal error %v", name, got, perr)
		}
	}
}
