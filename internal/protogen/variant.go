package protogen

import (
	"fmt"
	"path"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

// copyVariant returns the copies of v: the proto paths of the copied files,
// sorted, and their renamed FileDescriptorProtos, dependencies first. paths
// are t's files and files their protos with all their dependencies,
// dependencies first, as protoschema.Compile returns them; they are not
// modified.
func copyVariant(t Target, v Variant, paths []string, files []*descriptorpb.FileDescriptorProto) ([]string, []*descriptorpb.FileDescriptorProto, error) {
	if v.Name == "" || strings.ContainsAny(v.Name, "./") {
		return nil, nil, fmt.Errorf("protogen: variant name %q: want one identifier", v.Name)
	}
	copied := make(map[string]bool)
	for _, pattern := range v.Files {
		matched := false
		for _, p := range paths {
			ok, err := path.Match(pattern, p)
			if err != nil {
				return nil, nil, fmt.Errorf("protogen: variant %s: %w", v.Name, err)
			}
			if ok {
				copied[p], matched = true, true
			}
		}
		if !matched {
			return nil, nil, fmt.Errorf("protogen: variant %s: no file of the target matches %s", v.Name, pattern)
		}
	}

	// The full names declared in the copied files, which the copies
	// rename.
	declared := make(map[string]bool)
	for _, f := range files {
		if copied[f.GetName()] {
			declarations(f, declared)
		}
	}
	r := renamer{v: v, copied: copied, declared: declared}

	var vfiles []*descriptorpb.FileDescriptorProto
	for _, f := range files {
		if copied[f.GetName()] {
			c, err := r.file(t, f)
			if err != nil {
				return nil, nil, err
			}
			vfiles = append(vfiles, c)
		}
	}
	var vpaths []string // sorted as paths is: a common prefix keeps the order
	for _, p := range paths {
		if copied[p] {
			vpaths = append(vpaths, v.Name+"/"+p)
		}
	}
	return vpaths, vfiles, nil
}

// declarations adds the full names of every message, enum, extension and
// service f declares, nested ones included, to names.
func declarations(f *descriptorpb.FileDescriptorProto, names map[string]bool) {
	prefix := f.GetPackage()
	if prefix != "" {
		prefix += "."
	}
	var messages func(prefix string, msgs []*descriptorpb.DescriptorProto)
	messages = func(prefix string, msgs []*descriptorpb.DescriptorProto) {
		for _, m := range msgs {
			name := prefix + m.GetName()
			names[name] = true
			for _, e := range m.GetEnumType() {
				names[name+"."+e.GetName()] = true
			}
			for _, x := range m.GetExtension() {
				names[name+"."+x.GetName()] = true
			}
			messages(name+".", m.GetNestedType())
		}
	}
	messages(prefix, f.GetMessageType())
	for _, e := range f.GetEnumType() {
		names[prefix+e.GetName()] = true
	}
	for _, x := range f.GetExtension() {
		names[prefix+x.GetName()] = true
	}
	for _, s := range f.GetService() {
		names[prefix+s.GetName()] = true
	}
}

// renamer renames the copies of one variant.
type renamer struct {
	v        Variant
	copied   map[string]bool // proto paths of the copied files
	declared map[string]bool // full names declared in the copied files
}

// file returns the renamed copy of f.
func (r renamer) file(t Target, f *descriptorpb.FileDescriptorProto) (*descriptorpb.FileDescriptorProto, error) {
	c := proto.CloneOf(f)
	c.Name = proto.String(r.v.Name + "/" + f.GetName())
	if f.Package != nil {
		c.Package = proto.String(r.v.Name + "." + f.GetPackage())
	} else {
		c.Package = proto.String(r.v.Name)
	}

	goPkg := f.GetOptions().GetGoPackage()
	importPath, pkgName, _ := strings.Cut(goPkg, ";")
	base := t.Module + "/" + t.OutDir + "/"
	rest, ok := strings.CutPrefix(importPath, base)
	if !ok {
		return nil, fmt.Errorf("protogen: %s: go_package %q is not under %s (variant %s)", f.GetName(), goPkg, base, r.v.Name)
	}
	goPkg = base + r.v.Name + "/" + rest
	if pkgName != "" {
		goPkg += ";" + pkgName
	}
	c.Options.GoPackage = proto.String(goPkg)

	for i, dep := range c.Dependency {
		if r.copied[dep] {
			c.Dependency[i] = r.v.Name + "/" + dep
		}
	}
	r.messages(c.MessageType)
	r.fields(c.Extension)
	for _, s := range c.Service {
		for _, m := range s.Method {
			m.InputType = r.typeName(m.InputType)
			m.OutputType = r.typeName(m.OutputType)
		}
	}
	return c, nil
}

// messages renames the type references in msgs and their nested messages.
func (r renamer) messages(msgs []*descriptorpb.DescriptorProto) {
	for _, m := range msgs {
		r.fields(m.Field)
		r.fields(m.Extension)
		r.messages(m.NestedType)
	}
}

// fields renames the type references of fields (field types and
// extendees).
func (r renamer) fields(fields []*descriptorpb.FieldDescriptorProto) {
	for _, fd := range fields {
		fd.TypeName = r.typeName(fd.TypeName)
		fd.Extendee = r.typeName(fd.Extendee)
	}
}

// typeName renames a fully qualified type reference (".pkg.Name") to a
// declaration of a copied file; it keeps any other.
func (r renamer) typeName(name *string) *string {
	if name == nil {
		return nil
	}
	full, ok := strings.CutPrefix(*name, ".")
	if !ok || !r.declared[full] {
		return name
	}
	return proto.String("." + r.v.Name + "." + full)
}
