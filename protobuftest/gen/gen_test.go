// Package gen holds the generated Go code of the test schemas, one package
// per go_package: with the open struct API here, and renamed copies with
// the hybrid and the Opaque API under hybrid/ and opaque/. It also holds
// the test that fails while any of it is stale.
package gen

import (
	"context"
	"os"
	"testing"

	"github.com/protolayout/protolayout/internal/protogen"
)

// TestGeneratedFilesUpToDate regenerates the Go code of the test schemas
// and of their hybrid and Opaque copies in memory and fails if a committed file is stale, missing or left over.
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
