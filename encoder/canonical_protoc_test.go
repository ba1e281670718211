package encoder_test

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/internal/reloadtest"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestRefCanonicalMatchesProtoc validates the test oracle, refCanonical,
// against protoc --encode (C++, which writes fields in field-number order)
// on random messages without maps of every test schema message that
// protoc 3.21 (Debian's protobuf-compiler, which .ci/run installs) can
// read: not the editions files, which it predates, nor
// google.protobuf.MessageOptions, whose Go descriptor has fields its
// descriptor.proto lacks. NaNs are made protoc's own quiet NaN and closed
// enums' undeclared numbers (which its text parser refuses) declared
// ones before both encode. It skips only when protoc is not installed,
// and fails then under CI.
func TestRefCanonicalMatchesProtoc(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("protoc is not installed; .ci/run installs Debian's protobuf-compiler")
		}
		t.Skip("protoc is not installed (Debian: apt-get install protobuf-compiler)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"protobuftest/proto/test2.proto", "protobuftest/proto/test3.proto", "protobuftest/proto/customoptions.proto"}
	n := reloadtest.Seeds() / 30
	for _, tw := range protobuftest.Twins() {
		file := tw.Gen.Descriptor().ParentFile().Path()
		if !strings.HasPrefix(file, "protobuftest/proto/test2") && !strings.HasPrefix(file, "protobuftest/proto/test3") && !strings.HasPrefix(file, "protobuftest/proto/customoptions") {
			continue
		}
		for seed := range n {
			m := tw.Gen.New()
			protobuftest.Fill(m, seed, protobuftest.RandOptions{MaxDepth: 3, NoMaps: true, Extensions: tw.GenExts})
			normalizeForProtoc(m)
			want, err := refCanonical(m, encoder.Canonical)
			if err != nil {
				t.Fatal(err)
			}
			text, err := prototext.MarshalOptions{AllowPartial: true}.Marshal(m.Interface())
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"-I", root, "--encode=" + string(tw.Name)}
			if _, err := os.Stat("/usr/include/google/protobuf/descriptor.proto"); err == nil {
				args = append(args, "-I", "/usr/include")
			}
			cmd := exec.Command(protoc, append(args, files...)...)
			cmd.Dir = root
			cmd.Stdin = bytes.NewReader(text)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s seed %d: protoc: %v: %s\ninput: %s", tw.Name, seed, err, stderr.Bytes(), text)
			}
			if got := stdout.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("%s seed %d: protoc wrote\n%x\nthe reference\n%x\n%s", tw.Name, seed, got, want, protobuftest.FirstDiff(want, got, tw.Gen.Descriptor()))
			}
			if err := encoder.CheckCanonical(want, tw.Gen.Descriptor(), encoder.Canonical); err != nil {
				t.Fatalf("%s seed %d: %v", tw.Name, seed, err)
			}
		}
	}
}

// normalizeForProtoc rewrites what text format cannot carry to protoc
// exactly: every NaN becomes the quiet NaN protoc's parser makes, every
// undeclared number of a closed enum a declared one.
func normalizeForProtoc(m protoreflect.Message) {
	fix := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) protoreflect.Value {
		switch fd.Kind() {
		case protoreflect.DoubleKind:
			if math.IsNaN(v.Float()) {
				return protoreflect.ValueOfFloat64(math.Float64frombits(0x7ff8000000000000))
			}
		case protoreflect.FloatKind:
			if math.IsNaN(v.Float()) {
				return protoreflect.ValueOfFloat32(math.Float32frombits(0x7fc00000))
			}
		case protoreflect.EnumKind:
			if ed := fd.Enum(); ed.IsClosed() && ed.Values().ByNumber(v.Enum()) == nil {
				return protoreflect.ValueOfEnum(ed.Values().Get(0).Number())
			}
		case protoreflect.MessageKind, protoreflect.GroupKind:
			normalizeForProtoc(v.Message())
		}
		return v
	}
	type set struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}
	var sets []set
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.IsList() {
			l := v.List()
			for i := range l.Len() {
				l.Set(i, fix(fd, l.Get(i)))
			}
			return true
		}
		sets = append(sets, set{fd, fix(fd, v)})
		return true
	})
	for _, s := range sets {
		m.Set(s.fd, s.v)
	}
}
