package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/protoutil"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/internal/fileset"
)

// schemaFlags are the flags every command takes to load its schema and
// name its message type.
type schemaFlags struct {
	descriptors string
	protoDirs   stringList
	importPaths stringList
	typeName    string
}

// register adds the schema flags to fs.
func (s *schemaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.descriptors, "descriptors", "", "read the schema from `FILE`, a binary FileDescriptorSet with its imports (protoc --include_imports -o FILE, or buf build -o FILE)")
	fs.Var(&s.protoDirs, "proto", "compile the schema from every .proto file under `DIR`, which is also an import path (repeatable); the well-known types are built in")
	fs.Var(&s.importPaths, "I", "one more import `DIR` for -proto, whose files are compiled only where imported (repeatable)")
	fs.StringVar(&s.typeName, "type", "", "the message type, by full name (`pkg.Msg`)")
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// schema is a loaded set of files, with dynamic types for all their
// messages and extensions.
type schema struct {
	files *protoregistry.Files
	types *dynamicpb.Types
}

// loadMessage loads the schema the flags name and finds the message type
// -type names in it, whose messages are dynamicpb's.
func (s *schemaFlags) loadMessage() (*schema, protoreflect.MessageType, error) {
	sc, err := s.load()
	if err != nil {
		return nil, nil, err
	}
	md, err := sc.message(s.typeName)
	if err != nil {
		return nil, nil, err
	}
	mt, err := sc.types.FindMessageByName(md.FullName())
	if err != nil {
		return nil, nil, err
	}
	return sc, mt, nil
}

// load loads the schema the flags name. Flag misuse is a usageError.
func (s *schemaFlags) load() (*schema, error) {
	switch {
	case len(s.importPaths) > 0 && len(s.protoDirs) == 0:
		return nil, usageErrorf("-I needs -proto")
	case s.descriptors != "" && len(s.protoDirs) > 0:
		return nil, usageErrorf("-descriptors and -proto are exclusive: give one of them")
	case s.descriptors == "" && len(s.protoDirs) == 0:
		return nil, usageErrorf("no schema: give -descriptors FILE (a FileDescriptorSet) or -proto DIR (.proto sources)")
	}
	var set *descriptorpb.FileDescriptorSet
	var err error
	if s.descriptors != "" {
		set, err = readDescriptorSet(s.descriptors)
	} else {
		set, err = compileProtos(s.protoDirs, s.importPaths)
	}
	if err != nil {
		return nil, err
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		if s.descriptors != "" {
			return nil, fmt.Errorf("%s: %v (was it written with its imports, protoc --include_imports?)", s.descriptors, err)
		}
		return nil, err
	}
	return &schema{files: files, types: dynamicpb.NewTypes(files)}, nil
}

// readDescriptorSet reads a binary FileDescriptorSet from the file at path.
func readDescriptorSet(path string) (*descriptorpb.FileDescriptorSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *fs.PathError: "open PATH: no such file or directory"
	}
	set := new(descriptorpb.FileDescriptorSet)
	if err := proto.Unmarshal(b, set); err != nil {
		return nil, fmt.Errorf("%s: not a binary FileDescriptorSet: %s", path, trimProto(err))
	}
	if len(set.GetFile()) == 0 {
		return nil, fmt.Errorf("%s: not a binary FileDescriptorSet: it holds no file", path)
	}
	return set, nil
}

// compileProtos compiles every .proto file under the directories dirs, with
// dirs and then importPaths as import paths, and returns them with their
// imports, dependencies first.
func compileProtos(dirs, importPaths []string) (*descriptorpb.FileDescriptorSet, error) {
	var names []string
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil {
			if pe, ok := err.(*fs.PathError); ok {
				err = pe.Err
			}
			return nil, fmt.Errorf("-proto %s: %v", dir, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("-proto %s: not a directory (-proto takes the directory of the .proto files, which is also their import path)", dir)
		}
		err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && filepath.Ext(path) == ".proto" {
				rel, err := filepath.Rel(dir, path)
				if err != nil {
					return err
				}
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("-proto %s: no .proto file found", strings.Join(dirs, ", "))
	}
	slices.Sort(names)
	names = slices.Compact(names)

	importDirs := append(slices.Clone(dirs), importPaths...)
	var errs []error
	rep := reporter.NewReporter(
		func(err reporter.ErrorWithPos) error {
			errs = append(errs, err)
			return nil // go on, to count them
		},
		nil, // warnings (unused imports) are not the user's problem here
	)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: importDirs,
		}),
		Reporter:       rep,
		MaxParallelism: 1, // the first error reported is the first in file order
	}
	linked, err := c.Compile(context.Background(), names...)
	if len(errs) > 0 {
		err = onDisk(errs[0], importDirs)
		if len(errs) > 1 {
			err = fmt.Errorf("%w (and %d more errors)", err, len(errs)-1)
		}
		return nil, err
	}
	if err != nil {
		return nil, onDisk(err, importDirs)
	}

	fds := make([]protoreflect.FileDescriptor, len(linked))
	for i, f := range linked {
		fds[i] = f
	}
	return fileSetOf(fds...), nil
}

// fileSetOf returns the FileDescriptorSet of fds and their imports,
// dependencies first, as buf build -o and protoc --include_imports write
// it.
func fileSetOf(fds ...protoreflect.FileDescriptor) *descriptorpb.FileDescriptorSet {
	set := new(descriptorpb.FileDescriptorSet)
	for _, fd := range fileset.Closure(fds...) {
		set.File = append(set.File, protoutil.ProtoFromFileDescriptor(fd))
	}
	return set
}

// onDisk returns err, a compile error, with the file named by its path on
// disk (found under one of importDirs) rather than by its import path, so
// that it can be opened from the message.
func onDisk(err error, importDirs []string) error {
	var ewp reporter.ErrorWithPos
	if !errors.As(err, &ewp) {
		return err
	}
	hint := ""
	if errors.Is(ewp.Unwrap(), fs.ErrNotExist) {
		hint = " (an import path missing? add it with -I DIR)"
	}
	pos := ewp.GetPosition()
	for _, dir := range importDirs {
		path := filepath.Join(dir, filepath.FromSlash(pos.Filename))
		if _, statErr := os.Stat(path); statErr == nil {
			return fmt.Errorf("%s:%d:%d: %w%s", path, pos.Line, pos.Col, ewp.Unwrap(), hint)
		}
	}
	return fmt.Errorf("%w%s", err, hint)
}

// message returns the descriptor of the message type the -type flag names.
// A missing -type is a usageError; an unknown one is an error that lists
// the closest names the schema has.
func (sc *schema) message(name string) (protoreflect.MessageDescriptor, error) {
	if name == "" {
		return nil, usageErrorf("no message type: give -type pkg.Msg%s", sc.suggest(""))
	}
	name = strings.TrimPrefix(name, ".") // as protoc spells type names in descriptors
	d, err := sc.files.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, fmt.Errorf("no message type %s in the schema%s", name, sc.suggest(name))
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a message type but %s%s", name, kindOf(d), sc.suggest(name))
	}
	return md, nil
}

// kindOf names the kind of descriptor d for an error message.
func kindOf(d protoreflect.Descriptor) string {
	switch d.(type) {
	case protoreflect.EnumDescriptor:
		return "an enum"
	case protoreflect.EnumValueDescriptor:
		return "an enum value"
	case protoreflect.FieldDescriptor:
		return "a field"
	case protoreflect.OneofDescriptor:
		return "a oneof"
	case protoreflect.ServiceDescriptor:
		return "a service"
	case protoreflect.MethodDescriptor:
		return "a method"
	}
	return "something else"
}

// messageNames returns the full names of every message type of the schema,
// map entries excluded, sorted.
func (sc *schema) messageNames() []protoreflect.FullName {
	var names []protoreflect.FullName
	var walk func(mds protoreflect.MessageDescriptors)
	walk = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			md := mds.Get(i)
			if !md.IsMapEntry() {
				names = append(names, md.FullName())
			}
			walk(md.Messages())
		}
	}
	sc.files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		walk(fd.Messages())
		return true
	})
	slices.Sort(names)
	return names
}

// extensionsOf returns the extensions of the message type name that the
// schema declares, by ascending number.
func (sc *schema) extensionsOf(name protoreflect.FullName) []protoreflect.ExtensionDescriptor {
	var exts []protoreflect.ExtensionDescriptor
	add := func(xds protoreflect.ExtensionDescriptors) {
		for i := range xds.Len() {
			if xd := xds.Get(i); xd.ContainingMessage().FullName() == name {
				exts = append(exts, xd)
			}
		}
	}
	var walk func(mds protoreflect.MessageDescriptors)
	walk = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			add(mds.Get(i).Extensions())
			walk(mds.Get(i).Messages())
		}
	}
	sc.files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		add(fd.Extensions())
		walk(fd.Messages())
		return true
	})
	slices.SortFunc(exts, func(a, b protoreflect.ExtensionDescriptor) int {
		return cmp.Compare(a.Number(), b.Number())
	})
	return exts
}

// suggest returns the end of an error about the type name asked for:
// the closest names of the schema's message types, or how to list them.
func (sc *schema) suggest(asked string) string {
	const listing = "protolayout layout with the same schema flags and no -type lists them"
	names := sc.messageNames()
	if len(names) == 0 {
		return "; the schema has no message type"
	}
	type match struct {
		name  protoreflect.FullName
		score int // lower is closer
	}
	var matches []match
	for _, n := range names {
		if asked == "" {
			matches = append(matches, match{n, 0})
		} else if s, ok := closeness(asked, string(n)); ok {
			matches = append(matches, match{n, s})
		}
	}
	slices.SortStableFunc(matches, func(a, b match) int { return cmp.Compare(a.score, b.score) })
	const most = 5
	var list []string
	for i, m := range matches {
		if i == most {
			break
		}
		list = append(list, string(m.name))
	}
	switch {
	case len(list) == 0:
		return fmt.Sprintf(" (it has %d message types; %s)", len(names), listing)
	case asked == "" && len(matches) <= most:
		return " (the schema has " + strings.Join(list, ", ") + ")"
	case asked == "":
		return fmt.Sprintf(" (the schema has %d message types, e.g. %s; %s)", len(names), strings.Join(list, ", "), listing)
	case len(matches) <= most:
		return "; did you mean " + strings.Join(list, ", ") + "?"
	default:
		return fmt.Sprintf("; did you mean %s? (%s)", strings.Join(list, ", "), listing)
	}
}

// closeness tells whether the full name name is close to what was asked,
// and how close (0 is closest): same name but for case, same short name or
// ending, containing it, or a few edits away.
func closeness(asked, name string) (int, bool) {
	la, ln := strings.ToLower(asked), strings.ToLower(name)
	short := ln[strings.LastIndexByte(ln, '.')+1:]
	askedShort := la[strings.LastIndexByte(la, '.')+1:]
	switch {
	case la == ln:
		return 0, true
	case strings.HasSuffix(ln, "."+la) || short == askedShort:
		return 1, true
	case strings.Contains(ln, la):
		return 2, true
	}
	if d := editDistance(la, ln); d <= max(2, len(la)/4) {
		return 3 + d, true
	}
	if d := editDistance(askedShort, short); d <= max(1, len(askedShort)/4) {
		return 4 + d, true
	}
	return 0, false
}

// editDistance returns the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
