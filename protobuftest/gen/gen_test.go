// Package gen holds the generated Go code of the test schemas, one package
// per go_package, and the test that fails while it is stale.
package gen

import (
	"context"
	"os"
	"testing"

	"github.com/protolayout/protolayout/internal/protogen"
)

// TestGeneratedFilesUpToDate regenerates the Go code of the test schemas in
// memory and fails if a committed file is stale, missing or left over.
func TestGeneratedFilesUpToDate(t *testing.T) {
	problems, err := protogen.Verify(context.Background(), os.DirFS("../.."), protogen.Protobuftest)
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
