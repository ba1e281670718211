// Package inlinetest keeps the hot paths' small helpers within the
// compiler's inlining budget, and the decoder's cuts free of write
// barriers: a function that stops inlining costs a call on every value
// encoded, a barrier costs on every message decoded while the collector
// marks, and nothing else would notice.
package inlinetest

import (
	"maps"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// hot lists, per package, the functions that must inline.
var hot = map[string][]string{
	"github.com/protolayout/protolayout/internal/wire": {
		"AppendVarint", "PutVarint", "PutWord", "AppendKey", "SizeVarint", "SizeTag", "AddSize", "MulSize", "FixedWidth", "Grow",
	},
	"github.com/protolayout/protolayout/internal/utf8x": {
		"ValidString", "Valid",
	},
	"github.com/protolayout/protolayout/internal/layout": {
		"(*Field).IsMessage", "(*Layout).Lookup", "(*Rec).AppendKey", "(*Rec).Wrap",
		// the Writer's records: the learned width its fast paths read
		"(*LearnedWidth).Guess", "(*Layout).WriterTable", "(*Field).WriterExt",
	},
	"github.com/protolayout/protolayout/internal/cursor": {
		"(*Walker).pop", "(*Walker).Skip", "(*Walker).Depth", "(*Walker).appendEntry", "(*Walker).appendExt",
		// the common step of a walk: a singular scalar of a dynamicpb message
		"(*Walker).rangedScalar", "(*Walker).exit",
	},
	"github.com/protolayout/protolayout/internal/sizing": {
		"(*Sizer).open", "(*Sizer).push", "(*Sizer).setSize",
		"(*Sizer).recordValue", "(*Sizer).recordPacked", "(*Sizer).recordUnknown",
		"(*Sizer).recordEnter", "(*Sizer).recordRef",
		"checksUTF8", "delimitedSize", "scalarSize", "packedRecordSize", "wrapped",
		"(*identityMemo).mayHave", "(*identityMemo).offer",
	},
	"github.com/protolayout/protolayout/internal/engine": {
		"(*genField).childProgram", "(*enc).visit", "(*enc).hasExtensions", "appendString",
		"(*enc).sizeUnknown", "closeFrame", "(*more).rec", "(*enc).sizeBlob",
		"(*Message).strAt", "(*Message).msgAt", "(*Message).listAt", "(*Message).mapAt",
	},
	"github.com/protolayout/protolayout/internal/walk": {
		"(*Options).maxSize", "(*Options).sizing",
	},
	"github.com/protolayout/protolayout/encoder": {
		"(*MarshalOptions).maxSize", "(*Encoder).walkOptions",
		// the Writer's fast paths
		"(*Writer).next", "(*wframe).commitFast", "(*Writer).room", "(*Writer).fits", "putTag",
		"(*Writer).putHead", "(*Writer).pushFast", "openEntry",
		"utf8x.ShortASCII[go.shape.string]", "utf8x.ShortASCII[go.shape.[]uint8]",
		"(*wframe).setWritten", "(*Writer).setFast", "(*Writer).addSlack",
		"(*Writer).learnOf", "(*Writer).tagAt", "(*wframe).open", "(*Writer).checksRequired",
		// the invariant check, empty without the protolayout_debug tag
		"(*Writer).check",
	},
}

// inlineTargets are the architectures where the hot list holds: the
// 64-bit ones the encoder is tuned for (it holds on ppc64le, s390x and
// loong64 too, which CI does not build for).
var inlineTargets = map[string]bool{"amd64": true, "arm64": true}

func targetList() string {
	return strings.Join(slices.Sorted(maps.Keys(inlineTargets)), " and ")
}

func TestHotFunctionsInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the packages with -gcflags=-m")
	}
	if !inlineTargets[runtime.GOARCH] {
		// go test builds for the GOARCH it runs, so the build below
		// does too.
		t.Skipf("the hot list is kept for %s; on %s some helpers cost more (math/bits and unaligned loads are compiler intrinsics on those, calls here) and exceed the inlining budget", targetList(), runtime.GOARCH)
	}
	pkgs := make([]string, 0, len(hot))
	for p := range hot {
		pkgs = append(pkgs, p)
	}
	args := append([]string{"build", "-gcflags=-m"}, pkgs...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	// The compiler's output comes in groups headed "# import/path", and
	// may be replayed from the build cache with file paths relative to
	// wherever it first ran, so the header, not the path, names the
	// package.
	inlinable := map[string]bool{}
	re := regexp.MustCompile(`\.go:\d+:\d+: can inline (\S+)$`)
	pkg := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "# ") {
			pkg = strings.TrimPrefix(line, "# ")
			continue
		}
		if m := re.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "/") {
			inlinable[pkg+" "+m[1]] = true
		}
	}
	for pkg, fns := range hot {
		for _, fn := range fns {
			if !inlinable[pkg+" "+fn] {
				t.Errorf("%s.%s no longer inlines", pkg, fn)
			}
		}
	}
}
