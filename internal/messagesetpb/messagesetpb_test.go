//go:build protolegacy

package messagesetpb

import (
	"context"
	"os"
	"testing"

	"github.com/protolayout/protolayout/internal/protogen"
)

// TestGeneratedFilesUpToDate regenerates the MessageSet schema's Go code in
// memory and fails if a committed file is stale, missing or left over. Only
// a protolegacy build can generate it.
func TestGeneratedFilesUpToDate(t *testing.T) {
	problems, err := protogen.Verify(context.Background(), os.DirFS("../.."), protogen.Legacy)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Errorf("regenerate from the module root with:\n\t%s", protogen.LegacyCommand)
	}
}
