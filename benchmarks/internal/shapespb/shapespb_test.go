package shapespb_test

import (
	"context"
	"os"
	"testing"

	"github.com/protolayout/protolayout/internal/protogen"
)

// TestGeneratedUpToDate regenerates the Go code of the benchmark shapes in
// memory and fails if the committed file is stale or missing, or if a
// .pb.go file here is not generated from a schema.
func TestGeneratedUpToDate(t *testing.T) {
	problems, err := protogen.Verify(context.Background(), os.DirFS("../../.."), protogen.Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Errorf("regenerate from the module root with:\n\t%s", protogen.Command)
	}
}
