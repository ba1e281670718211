package encoder_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/protobuftest"
)

// fuzzTargets maps each bytes fuzz target to the message it decodes into.
var fuzzTargets = map[string]protoreflect.FullName{
	"FuzzProto2":      "protolayout.test2.TestAllTypes",
	"FuzzProto2Ext":   "protolayout.test2.TestAllExtensions",
	"FuzzRequired":    "protolayout.test2.TestRequiredContainer",
	"FuzzProto3":      "protolayout.test3.TestAllTypes",
	"FuzzEditions":    "protolayout.testeditions.TestAllTypes",
	"FuzzRecursive":   "protolayout.test3.TestRecursive",
	"FuzzFieldNumber": "protolayout.test3.TestFieldNumbers",
}

// fuzzerName matches the names the fuzzer gives the inputs it saves.
var fuzzerName = regexp.MustCompile(`^[0-9a-f]{16}$`)

// The crafted seeds in testdata/fuzz (not the ones the fuzzer saved) must
// decode into their target's message, or they test nothing.
func TestCraftedFuzzSeedsDecode(t *testing.T) {
	for target, name := range fuzzTargets {
		files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
		if len(files) == 0 {
			t.Errorf("%s: no seed corpus", target)
		}
		tw := protobuftest.TwinByName(name)
		for _, file := range files {
			if fuzzerName.MatchString(filepath.Base(file)) {
				continue
			}
			b := readByteSeed(t, file)
			m := tw.Gen.New().Interface()
			if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, m); err != nil {
				t.Errorf("%s: does not decode into %s: %v", file, name, err)
			}
		}
	}
}

// readByteSeed reads a one-[]byte go test fuzz v1 file.
func readByteSeed(t *testing.T, file string) []byte {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("%s: not a one-[]byte fuzz file", file)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return []byte(s)
}
