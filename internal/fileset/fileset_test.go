package fileset_test

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/typepb"

	"github.com/protolayout/protolayout/internal/fileset"
)

func paths(fds []protoreflect.FileDescriptor) []string {
	var ps []string
	for _, fd := range fds {
		ps = append(ps, fd.Path())
	}
	return ps
}

// api.proto imports source_context.proto and type.proto, which imports
// any.proto and source_context.proto again: each comes once, imports
// first, in import order.
func TestClosureOrder(t *testing.T) {
	api := apipb.File_google_protobuf_api_proto
	got := paths(fileset.Closure(api, typepb.File_google_protobuf_type_proto))
	want := []string{
		"google/protobuf/source_context.proto",
		"google/protobuf/any.proto",
		"google/protobuf/type.proto",
		"google/protobuf/api.proto",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Closure = %q, want %q", got, want)
	}
}

// An import that was never resolved (a placeholder) is left out.
func TestClosureSkipsPlaceholders(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       new("a.proto"),
		Dependency: []string{"missing.proto"},
	}
	if _, err := protodesc.NewFile(fdp, nil); err == nil {
		t.Fatal("a file with an unresolved import built without AllowUnresolvable")
	}
	fd, err := protodesc.FileOptions{AllowUnresolvable: true}.New(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(fileset.Closure(fd)); !slices.Equal(got, []string{"a.proto"}) {
		t.Fatalf("Closure = %q, want only a.proto", got)
	}
}
