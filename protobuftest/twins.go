package protobuftest

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/runtime/protoimpl"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/internal/protoschema"
	"github.com/protolayout/protolayout/protobuftest/gen/customoptionspb"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
	"github.com/protolayout/protolayout/protobuftest/gen/testeditionspb"
)

// protoSources holds the .proto sources, rooted like the protobuftest
// directory (so at "proto/..."). The generated code in gen comes from the
// same files.
//
//go:embed proto/*.proto proto/legacy/*.proto
var protoSources embed.FS

// generatedFiles returns the descriptors of the generated schema files.
func generatedFiles() []protoreflect.FileDescriptor {
	return []protoreflect.FileDescriptor{
		customoptionspb.File_protobuftest_proto_customoptions_proto,
		test2pb.File_protobuftest_proto_test2_proto,
		test3pb.File_protobuftest_proto_test3_proto,
		testeditionspb.File_protobuftest_proto_testeditions_proto,
		testeditionspb.File_protobuftest_proto_testeditions_overrides_proto,
	}
}

// Twin pairs one test message's generated type with its dynamic type loaded
// at run time.
//
// Gen and Dyn describe the same message, with distinct descriptors:
// Gen.Descriptor() comes from the generated code and is registered in
// protoregistry.GlobalFiles; Dyn.Descriptor() comes from [DynamicFiles].
// A Twin is read-only and safe for concurrent use.
type Twin struct {
	// Name is the full name of the message.
	Name protoreflect.FullName
	// Gen is the generated message type (from the gen packages, or from
	// descriptorpb for google.protobuf.MessageOptions).
	Gen protoreflect.MessageType
	// Dyn is dynamicpb.NewMessageType over the runtime-loaded descriptor.
	Dyn protoreflect.MessageType
	// GenExts are the generated extension types of the test schemas that
	// extend this message, sorted by field number; empty if none.
	GenExts []protoreflect.ExtensionType
	// DynExts are dynamicpb.NewExtensionType over the runtime-loaded
	// descriptors of the same extensions, in the same order as GenExts.
	DynExts []protoreflect.ExtensionType
}

// twinSet is everything Twins and its siblings return, built once.
type twinSet struct {
	files    *protoregistry.Files
	types    *protoregistry.Types
	dynTypes *dynamic.Types
	twins    []Twin
	byName   map[protoreflect.FullName]int
}

var (
	twinsOnce sync.Once
	twinsSet  *twinSet
)

// loadTwins builds the twin set on first use.
func loadTwins() *twinSet {
	twinsOnce.Do(func() {
		files, err := LoadFiles()
		if err != nil {
			panic("protobuftest: loading the embedded schemas: " + err.Error())
		}
		s, err := newTwinSet(files)
		if err != nil {
			panic("protobuftest: " + err.Error())
		}
		twinsSet = s
	})
	return twinsSet
}

// Twins returns the twins of every message of every generated test schema,
// nested messages and groups included but not map entries, sorted by name.
// It also has a twin for google.protobuf.MessageOptions, which the custom
// options of protolayout.customoptions extend; its GenExts and DynExts hold
// those options only.
//
// The MessageSet messages of protolayout.messageset have no twin: their
// generated code is internal to this module, and proto.Marshal's outcome on
// them depends on the protolegacy build tag. Find their dynamic types in
// [DynamicTypes].
//
// The twins are built on first use; each call returns a new slice, but the
// GenExts and DynExts slices are shared and must not be modified. Twins panics only if the embedded schemas fail to compile
// or do not match the generated code, which are programming errors.
func Twins() []Twin {
	return slices.Clone(loadTwins().twins)
}

// TwinByName returns the twin of the message with the given full name. It
// panics if Twins has no such twin.
func TwinByName(name protoreflect.FullName) Twin {
	s := loadTwins()
	i, ok := s.byName[name]
	if !ok {
		panic(fmt.Sprintf("protobuftest: no twin named %q", name))
	}
	return s.twins[i]
}

// DynamicFiles returns the registry the dynamic twins were loaded from: the
// test schemas (the legacy MessageSet schema included) and copies of the
// files they import (well-known types, descriptor.proto), all distinct from
// the descriptors in protoregistry.GlobalFiles. It is built once; callers
// must not register more files in it.
func DynamicFiles() *protoregistry.Files {
	return loadTwins().files
}

// DynamicTypes returns the dynamicpb message and extension types of every
// message and extension in [DynamicFiles], map entries excepted, such as
// proto.UnmarshalOptions{Resolver: DynamicTypes()} needs to resolve the
// extensions of dynamic messages. The message types are the Dyn types of
// [Twins]. Callers must not register more types in it.
func DynamicTypes() *protoregistry.Types {
	return loadTwins().types
}

// DynamicMessageTypes resolves every message and extension of
// [DynamicFiles] to the types of package dynamic (dynamic.NewTypes over it),
// as [DynamicTypes] resolves them to dynamicpb's: the resolver that
// proto.UnmarshalOptions, and [Equivalent], need for the extensions of the
// *dynamic.Message twins [DynamicMessageTwin] returns. It is built once.
func DynamicMessageTypes() *dynamic.Types {
	return loadTwins().dynTypes
}

// LoadFiles compiles the embedded schemas anew, as a proxy loading them at
// run time would, and returns a fresh registry of them like [DynamicFiles].
// Every call returns new descriptors: two loads give two distinct
// descriptors for the same full name.
//
// The files are compiled with protocompile and built with
// protodesc.NewFiles, except those declaring a MessageSet, which protodesc
// rejects without the protolegacy build tag: those are built from their
// FileDescriptorProto with protoimpl.DescBuilder, the builder generated code
// uses, so that their descriptors report IsMessageSet like generated ones.
func LoadFiles() (*protoregistry.Files, error) {
	_, protos, err := protoschema.Compile(context.Background(), protoSources, "protobuftest/", "proto/*.proto", "proto/legacy/*.proto")
	if err != nil {
		return nil, err
	}
	var std, legacy []*descriptorpb.FileDescriptorProto
	for _, fdp := range protos {
		if declaresMessageSet(fdp.GetMessageType()) {
			legacy = append(legacy, fdp)
		} else {
			std = append(std, fdp)
		}
	}
	files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: std})
	if err != nil {
		return nil, fmt.Errorf("protobuftest: %w", err)
	}
	for _, fdp := range legacy {
		if err := buildLegacyFile(fdp, files); err != nil {
			return nil, fmt.Errorf("protobuftest: %s: %w", fdp.GetName(), err)
		}
	}
	return files, nil
}

// declaresMessageSet reports whether any of the messages, or of their nested
// messages, uses the MessageSet wire format.
func declaresMessageSet(msgs []*descriptorpb.DescriptorProto) bool {
	for _, m := range msgs {
		if m.GetOptions().GetMessageSetWireFormat() || declaresMessageSet(m.GetNestedType()) {
			return true
		}
	}
	return false
}

// buildLegacyFile builds fdp with protoimpl.DescBuilder, which does not
// validate, and registers it in files.
func buildLegacyFile(fdp *descriptorpb.FileDescriptorProto, files *protoregistry.Files) (err error) {
	for _, dep := range fdp.GetDependency() {
		if _, err := files.FindFileByPath(dep); err != nil {
			return fmt.Errorf("import %q: %w", dep, err)
		}
	}
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(fdp)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil { // Build panics on malformed input
			err = fmt.Errorf("building descriptor: %v", r)
		}
	}()
	protoimpl.DescBuilder{
		RawDescriptor: raw,
		TypeResolver:  new(protoregistry.Types), // options use no extensions
		FileRegistry:  files,
	}.Build()
	return nil
}

// newTwinSet pairs the generated types with dynamic types over files.
func newTwinSet(files *protoregistry.Files) (*twinSet, error) {
	s := &twinSet{
		files:    files,
		types:    new(protoregistry.Types),
		dynTypes: dynamic.NewTypes(files),
		byName:   make(map[protoreflect.FullName]int),
	}

	// Dynamic types of everything in files.
	var err error
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		err = rangeDecls(fd.Messages(), fd.Extensions(),
			func(md protoreflect.MessageDescriptor) error {
				return s.types.RegisterMessage(dynamicpb.NewMessageType(md))
			},
			func(xd protoreflect.ExtensionDescriptor) error {
				return s.types.RegisterExtension(dynamicpb.NewExtensionType(xd))
			})
		return err == nil
	})
	if err != nil {
		return nil, err
	}

	// Generated messages, and generated extensions grouped by extendee.
	var names []protoreflect.FullName
	exts := make(map[protoreflect.FullName][]protoreflect.ExtensionType)
	for _, fd := range generatedFiles() {
		err := rangeDecls(fd.Messages(), fd.Extensions(),
			func(md protoreflect.MessageDescriptor) error {
				names = append(names, md.FullName())
				return nil
			},
			func(xd protoreflect.ExtensionDescriptor) error {
				xt, err := protoregistry.GlobalTypes.FindExtensionByName(xd.FullName())
				if err != nil {
					return fmt.Errorf("generated extension %s: %w", xd.FullName(), err)
				}
				if xt.TypeDescriptor().Descriptor() != xd {
					return fmt.Errorf("generated extension %s: registered twice", xd.FullName())
				}
				// The extendee may be outside the schemas, like
				// google.protobuf.MessageOptions; it gets a twin too.
				extendee := xd.ContainingMessage().FullName()
				names = append(names, extendee)
				exts[extendee] = append(exts[extendee], xt)
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)

	for _, name := range names {
		gen, err := protoregistry.GlobalTypes.FindMessageByName(name)
		if err != nil {
			return nil, fmt.Errorf("generated message %s: %w", name, err)
		}
		dyn, err := s.types.FindMessageByName(name)
		if err != nil {
			return nil, fmt.Errorf("dynamic message %s: %w", name, err)
		}
		tw := Twin{Name: name, Gen: gen, Dyn: dyn}
		tw.GenExts = exts[name]
		slices.SortFunc(tw.GenExts, func(a, b protoreflect.ExtensionType) int {
			return cmp.Compare(a.TypeDescriptor().Number(), b.TypeDescriptor().Number())
		})
		for _, xt := range tw.GenExts {
			dxt, err := s.types.FindExtensionByName(xt.TypeDescriptor().FullName())
			if err != nil {
				return nil, fmt.Errorf("dynamic extension %s: %w", xt.TypeDescriptor().FullName(), err)
			}
			tw.DynExts = append(tw.DynExts, dxt)
		}
		s.byName[name] = len(s.twins)
		s.twins = append(s.twins, tw)
	}
	return s, nil
}

// rangeDecls calls msg for every message in msgs and their nested messages,
// map entries excepted, and ext for every extension in exts and nested in
// those messages. It stops at the first error.
func rangeDecls(msgs protoreflect.MessageDescriptors, exts protoreflect.ExtensionDescriptors,
	msg func(protoreflect.MessageDescriptor) error, ext func(protoreflect.ExtensionDescriptor) error,
) error {
	for i := range exts.Len() {
		if err := ext(exts.Get(i)); err != nil {
			return err
		}
	}
	for i := range msgs.Len() {
		md := msgs.Get(i)
		if md.IsMapEntry() {
			continue
		}
		if err := msg(md); err != nil {
			return err
		}
		if err := rangeDecls(md.Messages(), md.Extensions(), msg, ext); err != nil {
			return err
		}
	}
	return nil
}
