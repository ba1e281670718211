package main

// These tests build the command once and run it end to end: files in,
// bytes out, compared with what protobuf-go makes of the same input from a
// schema the test compiles itself.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

var (
	binary      string // the built command
	descriptors string // testdata/proto compiled to a FileDescriptorSet with its imports
	testFiles   *protoregistry.Files
	testTypes   *dynamicpb.Types
)

const protoDir = "testdata/proto"

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "protolayout-cmd-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "protolayout")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the command:", err)
		return 1
	}
	set, err := compileTestSchema()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compiling the test schema:", err)
		return 1
	}
	b, err := proto.Marshal(set)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	descriptors = filepath.Join(dir, "set.binpb")
	if err := os.WriteFile(descriptors, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testFiles, err = protodesc.NewFiles(set)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testTypes = dynamicpb.NewTypes(testFiles)
	return m.Run()
}

// compileTestSchema compiles testdata/proto as buf build or protoc
// --include_imports would: every file with its imports, dependencies first.
func compileTestSchema() (*descriptorpb.FileDescriptorSet, error) {
	var names []string
	err := filepath.WalkDir(protoDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && filepath.Ext(path) == ".proto" {
			rel, _ := filepath.Rel(protoDir, path)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{protoDir}}),
	}
	linked, err := c.Compile(context.Background(), names...)
	if err != nil {
		return nil, err
	}
	fds := make([]protoreflect.FileDescriptor, len(linked))
	for i, fd := range linked {
		fds[i] = fd
	}
	return fileSetOf(fds...), nil
}

// schemaArgs are the two ways of giving the command its schema.
func schemaArgs() map[string][]string {
	return map[string][]string{
		"descriptors": {"-descriptors", descriptors},
		"proto":       {"-proto", protoDir},
	}
}

// result is what one run of the command gave.
type result struct {
	stdout, stderr []byte
	code           int
}

// protolayout runs the built command with args and stdin.
func protolayout(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running protolayout %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// ok runs the command and fails the test unless it succeeds quietly.
func ok(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	r := protolayout(t, stdin, args...)
	if r.code != 0 || len(r.stderr) > 0 {
		t.Fatalf("protolayout %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parse parses input (JSON or text format) as a message of type name with
// protobuf-go, from the test's own copy of the schema.
func parse(t *testing.T, name, format string, input []byte) proto.Message {
	t.Helper()
	mt, err := testTypes.FindMessageByName(protoreflect.FullName(name))
	if err != nil {
		t.Fatal(err)
	}
	m := mt.New().Interface()
	if format == "text" {
		err = prototext.UnmarshalOptions{Resolver: testTypes}.Unmarshal(input, m)
	} else {
		err = protojson.UnmarshalOptions{Resolver: testTypes}.Unmarshal(input, m)
	}
	if err != nil {
		t.Fatalf("parsing %s as %s: %v", format, name, err)
	}
	return m
}

// unmarshal parses wire bytes as a message of type name with protobuf-go.
func unmarshal(t *testing.T, name string, b []byte) proto.Message {
	t.Helper()
	mt, err := testTypes.FindMessageByName(protoreflect.FullName(name))
	if err != nil {
		t.Fatal(err)
	}
	m := mt.New().Interface()
	if err := (proto.UnmarshalOptions{Resolver: testTypes}).Unmarshal(b, m); err != nil {
		t.Fatalf("unmarshaling %s: %v", name, err)
	}
	return m
}

func marshalDeterministic(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inputs are the messages the encode and decode tests run on.
var inputs = []struct {
	file, format, typeName string
	maps                   bool // the message holds map entries
}{
	{"thing.json", "json", "test.v3.Thing", true},
	{"thing.txtpb", "text", "test.v3.Thing", true},
	{"legacy.json", "json", "test.v2.Legacy", false},
}

func TestEncode(t *testing.T) {
	for schemaName, schema := range schemaArgs() {
		for _, in := range inputs {
			t.Run(schemaName+"/"+in.file, func(t *testing.T) {
				input := readFile(t, in.file)
				want := marshalDeterministic(t, parse(t, in.typeName, in.format, input))
				args := append([]string{"encode"}, schema...)
				args = append(args, "-type", in.typeName, "-format", in.format)

				got := ok(t, input, append(args, "-deterministic")...)
				if !bytes.Equal(got, want) {
					t.Errorf("encode -deterministic:\n got % x\nwant % x", got, want)
				}

				got = ok(t, input, args...)
				if !in.maps && !bytes.Equal(got, want) {
					t.Errorf("encode:\n got % x\nwant % x", got, want)
				}
				if !proto.Equal(unmarshal(t, in.typeName, got), unmarshal(t, in.typeName, want)) {
					t.Errorf("encode: the output decodes to another message than the input's")
				}
			})
		}
	}
}

func TestDecode(t *testing.T) {
	for schemaName, schema := range schemaArgs() {
		for _, in := range inputs {
			for _, format := range []string{"json", "text"} {
				t.Run(schemaName+"/"+in.file+"/"+format, func(t *testing.T) {
					want := parse(t, in.typeName, in.format, readFile(t, in.file))
					args := append([]string{"decode"}, schema...)
					args = append(args, "-type", in.typeName, "-format", format)
					out := ok(t, marshalDeterministic(t, want), args...)
					if got := parse(t, in.typeName, format, out); !proto.Equal(got, want) {
						t.Errorf("decode -format %s gave\n%s\nwhich is not the message encoded", format, out)
					}
				})
			}
		}
	}
}

// TestRoundTrip runs encode and decode back to back through the command
// alone: JSON in, JSON out, the same message.
func TestRoundTrip(t *testing.T) {
	input := readFile(t, "thing.json")
	b := ok(t, input, "encode", "-proto", protoDir, "-type", "test.v3.Thing")
	out := ok(t, b, "decode", "-descriptors", descriptors, "-type", "test.v3.Thing")
	if !proto.Equal(parse(t, "test.v3.Thing", "json", out), parse(t, "test.v3.Thing", "json", input)) {
		t.Errorf("encode then decode gave\n%s", out)
	}
}

func TestErrors(t *testing.T) {
	badDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(badDir, "bad.proto"), []byte("syntax = \"proto3\";\nmessage A {\n  int32 x = 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	thing := []string{"-descriptors", descriptors, "-type", "test.v3.Thing"}
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  string // the start of stderr
		also  string // found later on the line, if not empty
	}{
		{"bad JSON", append([]string{"encode"}, thing...), "{\n  \"id\": 1,\n  \"name\": }\n", 1,
			"protolayout: parsing test.v3.Thing from JSON: syntax error (line 3:11): unexpected token }", ""},
		{"unknown JSON field", append([]string{"encode"}, thing...), "{\"id\": 1, \"nope\": 2}", 1,
			"protolayout: parsing test.v3.Thing from JSON: (line 1:11): unknown field \"nope\"", ""},
		{"bad JSON value", append([]string{"encode"}, thing...), "{\"scores\": [1, \"x\"]}", 1,
			"protolayout: parsing test.v3.Thing from JSON: (line 1:16): invalid value for int32 field scores", ""},
		{"empty JSON", append([]string{"encode"}, thing...), "", 1,
			"protolayout: parsing test.v3.Thing from JSON: ", ""},
		{"bad text", append([]string{"encode", "-format", "text"}, thing...), "id: 1\nname: \"x\"\ncolor: PURPLE\n", 1,
			"protolayout: parsing test.v3.Thing from text format: (line 3:8): ", "PURPLE"},
		{"required missing on encode", []string{"encode", "-proto", protoDir, "-type", "test.v3.Thing"}, `{"legacy": {"count": 1}}`, 1,
			"protolayout: encoding test.v3.Thing: required field test.v2.Legacy.name not set", "legacy.name"},
		{"bad binary", append([]string{"decode"}, thing...), "\x0a\x05ab", 1,
			"protolayout: parsing test.v3.Thing from binary: ", ""},
		{"invalid UTF-8 in binary", append([]string{"decode"}, thing...), "\x12\x01\xff", 1,
			"protolayout: parsing test.v3.Thing from binary: ", "UTF-8"},
		{"required missing on decode", []string{"decode", "-proto", protoDir, "-type", "test.v2.Legacy"}, "\x10\x01", 1,
			"protolayout: parsing test.v2.Legacy from binary: required field test.v2.Legacy.name not set", ""},
		{"unknown type", []string{"encode", "-descriptors", descriptors, "-type", "test.v3.Thingg"}, "{}", 1,
			"protolayout: no message type test.v3.Thingg in the schema; did you mean test.v3.Thing", ""},
		{"short type name", []string{"layout", "-proto", protoDir, "-type", "legacy"}, "", 1,
			"protolayout: no message type legacy in the schema; did you mean test.v2.Legacy", ""},
		{"not a message", []string{"decode", "-proto", protoDir, "-type", "test.v3.Color"}, "", 1,
			"protolayout: test.v3.Color is not a message type but an enum", "protolayout layout"},
		{"missing descriptor file", []string{"encode", "-descriptors", "testdata/nope.binpb", "-type", "a.B"}, "{}", 1,
			"protolayout: open testdata/nope.binpb: no such file or directory", ""},
		{"not a descriptor set", []string{"encode", "-descriptors", "testdata/thing.json", "-type", "a.B"}, "{}", 1,
			"protolayout: testdata/thing.json: not a binary FileDescriptorSet: ", ""},
		{"missing proto dir", []string{"encode", "-proto", "testdata/nope", "-type", "a.B"}, "{}", 1,
			"protolayout: -proto testdata/nope: no such file or directory", ""},
		{"proto compile error", []string{"layout", "-proto", badDir}, "", 1,
			"protolayout: " + filepath.Join(badDir, "bad.proto") + ":4:1: syntax error: expecting ';'", ""},

		{"no type", []string{"encode", "-proto", protoDir}, "{}", 2,
			"protolayout: no message type: give -type pkg.Msg", "test.v3.Thing"},
		{"no schema", []string{"decode", "-type", "test.v3.Thing"}, "", 2,
			"protolayout: no schema: give -descriptors FILE", ""},
		{"two schemas", []string{"decode", "-proto", protoDir, "-descriptors", descriptors, "-type", "test.v3.Thing"}, "", 2,
			"protolayout: -descriptors and -proto are exclusive", ""},
		{"unknown flag", []string{"encode", "-frobnicate"}, "", 2,
			"protolayout: encode: flag provided but not defined: -frobnicate", "protolayout encode -h"},
		{"bad format", append([]string{"decode", "-format", "yaml"}, thing...), "", 2,
			"protolayout: -format yaml: want json or text", ""},
		{"extra argument", append([]string{"encode"}, append(thing, "in.json")...), "", 2,
			"protolayout: encode: unexpected argument \"in.json\"", ""},
		{"unknown command", []string{"frobnicate"}, "", 2,
			"protolayout: unknown command \"frobnicate\"", "encode, decode, check, bench, layout"},
		{"help for an unknown command", []string{"help", "frobnicate"}, "", 2,
			"protolayout: help takes one command name", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := protolayout(t, []byte(tt.stdin), tt.args...)
			if r.code != tt.code {
				t.Errorf("exit status %d, want %d", r.code, tt.code)
			}
			if len(r.stdout) > 0 {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			stderr := string(r.stderr)
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			if !strings.HasPrefix(stderr, tt.want) || !strings.Contains(stderr, tt.also) {
				t.Errorf("stderr\n%q\nwant it to start with\n%q\nand to contain %q", stderr, tt.want, tt.also)
			}
		})
	}
}

// TestNoPanicOnTruncatedInput feeds every command cut-off inputs: each run
// must fail or succeed with an exit status and one line, never a crash.
func TestNoPanicOnTruncatedInput(t *testing.T) {
	input := readFile(t, "thing.json")
	b := marshalDeterministic(t, parse(t, "test.v3.Thing", "json", input))
	const cuts = 12
	for i := 1; i < cuts; i++ {
		for _, run := range []struct {
			args  []string
			stdin []byte
		}{
			{[]string{"encode", "-descriptors", descriptors, "-type", "test.v3.Thing"}, input[:len(input)*i/cuts]},
			{[]string{"decode", "-descriptors", descriptors, "-type", "test.v3.Thing"}, b[:len(b)*i/cuts]},
		} {
			r := protolayout(t, run.stdin, run.args...)
			if (r.code != 0 && r.code != 1) || strings.Contains(string(r.stderr), "goroutine ") {
				t.Errorf("%s of %d bytes: exit %d, stderr %q", run.args[0], len(run.stdin), r.code, r.stderr)
			}
			if r.code == 1 && strings.Count(string(r.stderr), "\n") != 1 {
				t.Errorf("%s of %d bytes: stderr is not one line: %q", run.args[0], len(run.stdin), r.stderr)
			}
		}
	}
}

func TestUsage(t *testing.T) {
	r := protolayout(t, nil)
	if r.code != 2 {
		t.Errorf("no arguments: exit %d, want 2", r.code)
	}
	help := ok(t, nil, "help")
	if !bytes.Equal(r.stderr, help) {
		t.Errorf("no arguments printed\n%s\nwant the help:\n%s", r.stderr, help)
	}
	for _, name := range []string{"encode", "decode", "layout", "help"} {
		if !regexp.MustCompile(`(?m)^\s+` + name + `\s+\S`).Match(help) {
			t.Errorf("help does not list %s:\n%s", name, help)
		}
	}
	for cmd, flags := range map[string][]string{
		"encode": {"-descriptors", "-proto", "-type", "-format", "-deterministic", "-canonical", "-strict", "-allow-partial"},
		"decode": {"-descriptors", "-proto", "-type", "-format", "-allow-partial"},
		"layout": {"-descriptors", "-proto", "-type", "-all"},
	} {
		r := protolayout(t, nil, cmd, "-h")
		if r.code != 0 || len(r.stdout) > 0 {
			t.Errorf("%s -h: exit %d, stdout %q; want 0, usage on stderr", cmd, r.code, r.stdout)
		}
		if !bytes.Equal(r.stderr, ok(t, nil, "help", cmd)) {
			t.Errorf("%s -h and help %s differ", cmd, cmd)
		}
		if !bytes.HasPrefix(r.stderr, []byte("Usage: protolayout "+cmd+" ")) {
			t.Errorf("%s -h: %q", cmd, r.stderr)
		}
		for _, f := range flags {
			if !regexp.MustCompile(`(?m)^\s+` + f + `\b`).Match(r.stderr) {
				t.Errorf("%s -h does not list %s:\n%s", cmd, f, r.stderr)
			}
		}
	}
}

// layoutRow matches one row of a layout table.
var layoutRow = regexp.MustCompile(`^(ext|\d+)\s+(\S+)\s+(\d+)\s+(.+?)\s+(varint|i64|len|sgroup|i32)\s+([0-9a-f]{2}(?: [0-9a-f]{2})*)\s+(-|yes \([0-9a-f ]+\))\s+(-|implicit|explicit|required)\s+(\S+)\s+(.+)$`)

func TestLayout(t *testing.T) {
	for schemaName, schema := range schemaArgs() {
		t.Run(schemaName, func(t *testing.T) {
			for _, name := range []string{"test.v3.Thing", "test.v2.Legacy"} {
				out := ok(t, nil, append(append([]string{"layout"}, schema...), "-type", name)...)
				checkLayout(t, name, string(out))
			}
			out := string(ok(t, nil, append([]string{"layout"}, schema...)...))
			want := "google.protobuf.Any\ngoogle.protobuf.Timestamp\ntest.v2.Legacy\ntest.v2.Legacy.Item\ntest.v3.Thing\ntest.v3.Thing.Part\n"
			if out != want {
				t.Errorf("layout without -type:\n%s\nwant\n%s", out, want)
			}
		})
	}

	out := string(ok(t, nil, "layout", "-proto", protoDir, "-type", "test.v3.Thing", "-all"))
	var headers []string
	for _, line := range strings.Split(out, "\n") {
		if h, _, found := strings.Cut(line, ": "); found && !strings.HasPrefix(line, "#") && !layoutRow.MatchString(line) {
			headers = append(headers, h)
		}
	}
	wantHeaders := []string{"test.v3.Thing", "test.v3.Thing.Part", "google.protobuf.Timestamp", "google.protobuf.Any", "test.v2.Legacy", "test.v2.Legacy.Item"}
	if !slices.Equal(headers, wantHeaders) {
		t.Errorf("layout -all printed the types %q, want %q", headers, wantHeaders)
	}

	// Two rows in full, for the columns the checks below leave out.
	for _, row := range []string{
		`4\s+scores\s+5\s+repeated int32\s+varint\s+28\s+yes \(2a\)\s+-\s+-\s+-`,
		`8\s+parts_by_slot\s+9\s+map<int32, test.v3.Thing.Part>\s+len\s+4a\s+-\s+-\s+-\s+entry: key 08, value 12`,
		`1\s+name\s+2\s+string\s+len\s+12\s+-\s+implicit\s+-\s+utf8 checked`,
		`18\s+text\s+20\s+string\s+len\s+a2 01\s+-\s+explicit\s+choice\s+utf8 checked`,
	} {
		if !regexp.MustCompile(`(?m)^` + row + `\s*$`).MatchString(out) {
			t.Errorf("layout -all has no row matching %s:\n%s", row, out)
		}
	}
}

// checkLayout checks the table layout printed for the message type name
// against the schema: the rows are its known extensions by number, then
// its fields in the order proto.Marshal writes them, each with its number,
// wire type, encoded tag, packing, presence and oneof.
func checkLayout(t *testing.T, name, out string) {
	t.Helper()
	mt, err := testTypes.FindMessageByName(protoreflect.FullName(name))
	if err != nil {
		t.Fatal(err)
	}
	md := mt.Descriptor()

	// The order proto.Marshal writes: extensions by number, the fields
	// outside real oneofs by number, then each oneof's members by number.
	var want []protoreflect.FieldDescriptor
	testFiles.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		for i := range f.Extensions().Len() { // the test schema declares its extensions at the top level
			if xd := f.Extensions().Get(i); xd.ContainingMessage().FullName() == md.FullName() {
				want = append(want, xd)
			}
		}
		return true
	})
	slices.SortFunc(want, func(a, b protoreflect.FieldDescriptor) int { return int(a.Number() - b.Number()) })
	var regular []protoreflect.FieldDescriptor
	for i := range md.Fields().Len() {
		if fd := md.Fields().Get(i); fd.ContainingOneof() == nil || fd.ContainingOneof().IsSynthetic() {
			regular = append(regular, fd)
		}
	}
	slices.SortFunc(regular, func(a, b protoreflect.FieldDescriptor) int { return int(a.Number() - b.Number()) })
	want = append(want, regular...)
	for i := range md.Oneofs().Len() {
		if od := md.Oneofs().Get(i); !od.IsSynthetic() {
			members := make([]protoreflect.FieldDescriptor, 0, od.Fields().Len())
			for j := range od.Fields().Len() {
				members = append(members, od.Fields().Get(j))
			}
			slices.SortFunc(members, func(a, b protoreflect.FieldDescriptor) int { return int(a.Number() - b.Number()) })
			want = append(want, members...)
		}
	}

	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], name+": ") || !strings.HasPrefix(lines[1], "#") {
		t.Fatalf("layout of %s: no header:\n%s", name, out)
	}
	rows := lines[2:]
	if len(rows) != len(want) {
		t.Fatalf("layout of %s has %d rows, want %d:\n%s", name, len(rows), len(want), out)
	}
	for i, line := range rows {
		fd := want[i]
		m := layoutRow.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("layout of %s: row %q does not parse", name, line)
			continue
		}
		wantName := string(fd.Name())
		if fd.IsExtension() {
			wantName = "[" + string(fd.FullName()) + "]"
		}
		wt := wireTypes[fd.Kind()]
		tag := fmt.Sprintf("% x", protowire.AppendTag(nil, fd.Number(), wt))
		packed := "-"
		if fd.IsPacked() {
			packed = fmt.Sprintf("yes (% x)", protowire.AppendTag(nil, fd.Number(), protowire.BytesType))
		}
		if fd.IsMap() {
			tag = fmt.Sprintf("% x", protowire.AppendTag(nil, fd.Number(), protowire.BytesType))
		}
		presence := "implicit"
		switch {
		case fd.IsList() || fd.IsMap():
			presence = "-"
		case fd.Cardinality() == protoreflect.Required:
			presence = "required"
		case fd.HasPresence():
			presence = "explicit"
		}
		oneof := "-"
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			oneof = string(od.Name())
		}
		got := []string{m[2], m[3], m[6], m[7], m[8], m[9]}
		exp := []string{wantName, fmt.Sprint(fd.Number()), tag, packed, presence, oneof}
		if !slices.Equal(got, exp) {
			t.Errorf("layout of %s, row %d:\n%s\ngot  name, number, tag, packed, presence, oneof %q\nwant %q", name, i, line, got, exp)
		}
	}
}

// wireTypes is the wire type of one value of each kind.
var wireTypes = map[protoreflect.Kind]protowire.Type{
	protoreflect.BoolKind: protowire.VarintType, protoreflect.EnumKind: protowire.VarintType,
	protoreflect.Int32Kind: protowire.VarintType, protoreflect.Sint32Kind: protowire.VarintType,
	protoreflect.Uint32Kind: protowire.VarintType, protoreflect.Int64Kind: protowire.VarintType,
	protoreflect.Sint64Kind: protowire.VarintType, protoreflect.Uint64Kind: protowire.VarintType,
	protoreflect.Sfixed32Kind: protowire.Fixed32Type, protoreflect.Fixed32Kind: protowire.Fixed32Type,
	protoreflect.FloatKind: protowire.Fixed32Type, protoreflect.Sfixed64Kind: protowire.Fixed64Type,
	protoreflect.Fixed64Kind: protowire.Fixed64Type, protoreflect.DoubleKind: protowire.Fixed64Type,
	protoreflect.StringKind: protowire.BytesType, protoreflect.BytesKind: protowire.BytesType,
	protoreflect.MessageKind: protowire.BytesType, protoreflect.GroupKind: protowire.StartGroupType,
}

// TestImportPaths compiles one directory of the test schema whose imports
// resolve through -I only.
func TestImportPaths(t *testing.T) {
	v3 := filepath.Join(protoDir, "test", "v3")
	out := ok(t, nil, "layout", "-proto", v3, "-I", protoDir)
	if want := "google.protobuf.Any\ngoogle.protobuf.Timestamp\ntest.v2.Legacy\ntest.v2.Legacy.Item\ntest.v3.Thing\ntest.v3.Thing.Part\n"; string(out) != want {
		t.Errorf("layout -proto %s -I %s:\n%s\nwant\n%s", v3, protoDir, out, want)
	}
	r := protolayout(t, nil, "layout", "-proto", v3)
	if r.code != 1 || !strings.HasPrefix(string(r.stderr), "protolayout: "+filepath.Join(v3, "things.proto")+":10:8: open ") ||
		!strings.HasSuffix(string(r.stderr), "(an import path missing? add it with -I DIR)\n") {
		t.Errorf("layout -proto %s without -I: exit %d, stderr %q", v3, r.code, r.stderr)
	}
	r = protolayout(t, nil, "layout", "-I", protoDir)
	if r.code != 2 || string(r.stderr) != "protolayout: -I needs -proto\n" {
		t.Errorf("layout -I alone: exit %d, stderr %q", r.code, r.stderr)
	}
}
