// Package settest holds the equivalence test over the FileDescriptorSet
// of every file linked into a test binary, which the encoder's tests and
// the OTLP tests (whose binary links more files) both run. It is apart from
// package reloadtest, so that modules whose tests only reload schemas do
// not need the test schemas' dependencies.
package settest

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/internal/reloadtest"
	"github.com/protolayout/protolayout/protobuftest"
)

// DescriptorSetEquivalence encodes the FileDescriptorSet of every file
// linked into the test binary (at least minFiles of them), generated and
// as dynamic twins (dynamicpb and *dynamic.Message) of a fresh load, and
// each file on its own, holding
// every output to proto.Marshal's.
func DescriptorSetEquivalence(t *testing.T, minFiles int) {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{}
	var paths []string
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		paths = append(paths, fd.Path())
		return true
	})
	slices.Sort(paths)
	for _, p := range paths {
		fd, _ := protoregistry.GlobalFiles.FindFileByPath(p)
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	if len(set.File) < minFiles {
		t.Fatalf("only %d files registered, want at least %d", len(set.File), minFiles)
	}
	mt, types := reloadtest.Type(t, set.ProtoReflect().Descriptor())
	d := reloadtest.Twin(t, set, mt, types)
	dm := reloadtest.MessageTwin(t, set, mt)
	protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, nil, set)
	protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, types, d)
	protobuftest.Equivalent(t, protobuftest.CheckOptions{Deterministic: true}, nil, dm)
	for i, f := range set.File {
		protobuftest.Equivalent(t, protobuftest.CheckOptions{}, nil, f)
		if t.Failed() {
			t.Fatalf("file %d (%s)", i, f.GetName())
		}
	}
}
