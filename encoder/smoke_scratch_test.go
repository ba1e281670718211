package encoder_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/encoder"
)

func TestSmoke(t *testing.T) {
	fds := &descriptorpb.FileDescriptorSet{}
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		fds.File = append(fds.File, protodesc.ToFileDescriptorProto(fd))
		return true
	})
	want, _ := proto.MarshalOptions{Deterministic: true}.Marshal(fds)
	got, err := encoder.Marshal(fds)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("gen: err=%v len got %d want %d", err, len(got), len(want))
	}
	dyn := dynamicpb.NewMessage(fds.ProtoReflect().Descriptor())
	if err := proto.Unmarshal(want, dyn); err != nil {
		t.Fatal(err)
	}
	got, err = encoder.Marshal(dyn)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("dyn: err=%v len got %d want %d", err, len(got), len(want))
	}
	t.Logf("ok %d bytes", len(got))
}
