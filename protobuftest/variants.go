package protobuftest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	hybridtest2pb "github.com/protolayout/protolayout/protobuftest/gen/hybrid/test2pb"
	hybridtest3pb "github.com/protolayout/protolayout/protobuftest/gen/hybrid/test3pb"
	hybridtesteditionspb "github.com/protolayout/protolayout/protobuftest/gen/hybrid/testeditionspb"
	opaquetest2pb "github.com/protolayout/protolayout/protobuftest/gen/opaque/test2pb"
	opaquetest3pb "github.com/protolayout/protolayout/protobuftest/gen/opaque/test3pb"
	opaquetesteditionspb "github.com/protolayout/protolayout/protobuftest/gen/opaque/testeditionspb"
)

// APILevel is one of the Go APIs protoc-gen-go generates for a message.
// The encoder must give the same bytes whichever API a message's code was
// generated with, so the test schemas are generated at all three.
type APILevel int

const (
	// APIOpen is protoc-gen-go's default struct API: exported fields.
	APIOpen APILevel = iota
	// APIHybrid keeps the exported fields and adds the Opaque API's
	// accessors (Get, Set, Has, Clear).
	APIHybrid
	// APIOpaque hides the fields behind the accessors; the struct layout
	// differs from the open one (presence bits, for instance).
	APIOpaque
)

// apiLevels lists the API levels in order: open, hybrid, opaque.
var apiLevels = [...]APILevel{APIOpen, APIHybrid, APIOpaque}

// String returns "open", "hybrid" or "opaque".
func (l APILevel) String() string {
	switch l {
	case APIOpen:
		return "open"
	case APIHybrid:
		return "hybrid"
	case APIOpaque:
		return "opaque"
	}
	return fmt.Sprintf("APILevel(%d)", int(l))
}

// prefix returns what the copy of the test schemas at level l prepends to
// proto packages, and so to full names: "hybrid." or "opaque.", and
// nothing for the open originals.
func (l APILevel) prefix() string {
	if l == APIOpen {
		return ""
	}
	return l.String() + "."
}

// variantFiles returns the descriptors of the generated copies of the test
// schemas at level l (hybrid or opaque), in the order generatedFiles lists
// their originals. customoptions.proto has no copies (see
// internal/protogen.Protobuftest).
func variantFiles(l APILevel) []protoreflect.FileDescriptor {
	switch l {
	case APIHybrid:
		return []protoreflect.FileDescriptor{
			hybridtest2pb.File_hybrid_protobuftest_proto_test2_proto,
			hybridtest3pb.File_hybrid_protobuftest_proto_test3_proto,
			hybridtesteditionspb.File_hybrid_protobuftest_proto_testeditions_proto,
			hybridtesteditionspb.File_hybrid_protobuftest_proto_testeditions_overrides_proto,
		}
	case APIOpaque:
		return []protoreflect.FileDescriptor{
			opaquetest2pb.File_opaque_protobuftest_proto_test2_proto,
			opaquetest3pb.File_opaque_protobuftest_proto_test3_proto,
			opaquetesteditionspb.File_opaque_protobuftest_proto_testeditions_proto,
			opaquetesteditionspb.File_opaque_protobuftest_proto_testeditions_overrides_proto,
		}
	}
	return nil
}

// VariantName returns the full name that the declaration named name in
// the test schemas (with or without a level's prefix) has in the copy at
// level l: name itself for [APIOpen], "hybrid."+name for [APIHybrid],
// "opaque."+name for [APIOpaque].
func VariantName(name protoreflect.FullName, l APILevel) protoreflect.FullName {
	return protoreflect.FullName(l.prefix() + string(openName(name)))
}

// openName strips a hybrid or opaque prefix from name.
func openName(name protoreflect.FullName) protoreflect.FullName {
	for _, l := range apiLevels[1:] {
		if rest, ok := strings.CutPrefix(string(name), l.prefix()); ok {
			return protoreflect.FullName(rest)
		}
	}
	return name
}

// Variant is one test message's generated type at one API level.
type Variant struct {
	// Level is the API the type was generated with.
	Level APILevel
	// Type is the generated message type, registered in
	// protoregistry.GlobalTypes under VariantName(name, Level).
	Type protoreflect.MessageType
	// Exts are the generated extension types, at the same level, of the
	// test schemas' extensions of this message, sorted by field number:
	// the same extensions at every level of a [VariantSet].
	Exts []protoreflect.ExtensionType
}

// Random returns a new message of v.Type set by [Fill] from seed and opts,
// with opts.Extensions replaced by v.Exts: the variants of one
// [VariantSet] given the same seed and options hold the same content.
func (v Variant) Random(seed uint64, opts RandOptions) proto.Message {
	m := v.Type.New()
	opts.Extensions = v.Exts
	Fill(m, seed, opts)
	return m.Interface()
}

// VariantSet holds one test message's generated types at every API level:
// three generated forms of one schema, which Fill with one seed fills with
// the same content, and which proto.Marshal encodes to the same bytes.
type VariantSet struct {
	// Name is the full name of the open message (the name of its [Twin]).
	Name protoreflect.FullName
	// Open is the open-API type: the Gen and GenExts of the message's twin.
	Open Variant
	// Hybrid is the hybrid-API type, from protobuftest/gen/hybrid.
	Hybrid Variant
	// Opaque is the Opaque-API type, from protobuftest/gen/opaque.
	Opaque Variant
}

// Levels returns the set's variants in the order open, hybrid, opaque.
func (s VariantSet) Levels() []Variant {
	return []Variant{s.Open, s.Hybrid, s.Opaque}
}

// At returns the set's variant at level l.
func (s VariantSet) At(l APILevel) Variant {
	switch l {
	case APIOpen:
		return s.Open
	case APIHybrid:
		return s.Hybrid
	case APIOpaque:
		return s.Opaque
	}
	panic(fmt.Sprintf("protobuftest: no API level %d", int(l)))
}

var (
	variantsOnce sync.Once
	variantsList []VariantSet
)

// GeneratedVariants returns, sorted by name, the open, hybrid and opaque
// generated types of every message of the test schemas, nested messages
// and groups included but not map entries, with their extension types.
// The messages of protolayout.customoptions, and
// google.protobuf.MessageOptions which they extend, have no entry: that
// schema is generated with the open API only, since a copy would extend
// MessageOptions a second time with the same field numbers.
//
// Each call returns a new slice; the Exts slices are shared and must not
// be modified. GeneratedVariants panics only if the generated code of the
// levels does not match, which is a programming error.
func GeneratedVariants() []VariantSet {
	variantsOnce.Do(func() {
		s, err := newVariants()
		if err != nil {
			panic("protobuftest: " + err.Error())
		}
		variantsList = s
	})
	return slices.Clone(variantsList)
}

// newVariants builds the variant sets from the generated copies and the
// twins.
func newVariants() ([]VariantSet, error) {
	var sets []VariantSet
	seen := make(map[protoreflect.FullName]bool)
	for _, fd := range variantFiles(APIHybrid) {
		err := rangeDecls(fd.Messages(), fd.Extensions(),
			func(md protoreflect.MessageDescriptor) error {
				name := openName(md.FullName())
				if !seen[name] {
					seen[name] = true
					sets = append(sets, VariantSet{Name: name})
				}
				return nil
			},
			func(xd protoreflect.ExtensionDescriptor) error {
				if !strings.HasPrefix(string(xd.ContainingMessage().FullName()), APIHybrid.prefix()) {
					return fmt.Errorf("the hybrid extension %s extends %s, outside the copies", xd.FullName(), xd.ContainingMessage().FullName())
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(sets, func(a, b VariantSet) int { return cmp.Compare(a.Name, b.Name) })

	for i := range sets {
		s := &sets[i]
		tw := TwinByName(s.Name)
		s.Open = Variant{Level: APIOpen, Type: tw.Gen, Exts: tw.GenExts}
		for _, l := range apiLevels[1:] {
			v := Variant{Level: l}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(VariantName(s.Name, l))
			if err != nil {
				return nil, fmt.Errorf("%s message %s: %w", l, s.Name, err)
			}
			v.Type = mt
			for _, oxt := range tw.GenExts {
				xt, err := protoregistry.GlobalTypes.FindExtensionByName(VariantName(oxt.TypeDescriptor().FullName(), l))
				if err != nil {
					return nil, fmt.Errorf("%s extension %s: %w", l, oxt.TypeDescriptor().FullName(), err)
				}
				if xt.TypeDescriptor().ContainingMessage() != mt.Descriptor() {
					return nil, fmt.Errorf("%s extension %s does not extend %s", l, xt.TypeDescriptor().FullName(), mt.Descriptor().FullName())
				}
				v.Exts = append(v.Exts, xt)
			}
			if l == APIHybrid {
				s.Hybrid = v
			} else {
				s.Opaque = v
			}
		}
	}
	return sets, nil
}

// VariantTwin returns a message of the generated test type at level l
// holding the same content as m, a message of a generated test type at
// any level or its dynamic twin. The copy goes field by field through
// protoreflect setters, as [DynamicTwin]'s does, so it carries content
// proto.Marshal refuses (invalid UTF-8, missing required fields) and
// decodes nothing lazily. Extensions are carried over by name into their
// generated types at level l; unknown bytes are copied verbatim.
func VariantTwin(m proto.Message, l APILevel) proto.Message {
	src := m.ProtoReflect()
	name := VariantName(src.Descriptor().FullName(), l)
	mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
	if err != nil {
		panic("protobuftest: no generated message " + string(name))
	}
	dst := mt.New()
	copyMessage(dst, src, func(fd protoreflect.FieldDescriptor) protoreflect.FieldDescriptor {
		if !fd.IsExtension() {
			return nil
		}
		name := VariantName(fd.FullName(), l)
		xt, err := protoregistry.GlobalTypes.FindExtensionByName(name)
		if err != nil {
			panic("protobuftest: no generated extension " + string(name))
		}
		return xt.TypeDescriptor()
	})
	return dst.Interface()
}
