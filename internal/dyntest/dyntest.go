// Package dyntest holds what the tests of package dynamic and of its
// storage (internal/engine) share: twins of test messages built from the
// same seed, and chains of nested messages.
package dyntest

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/protobuftest"
)

// Filled returns a dynamicpb message and a dynamic one of tw's type,
// filled by protobuftest.Fill from seed with the same options, and so
// with the same contents.
func Filled(tw protobuftest.Twin, seed uint64, opts protobuftest.RandOptions) (dpb, dyn proto.Message) {
	d := tw.Dyn.New()
	o := opts
	o.Extensions = tw.DynExts
	protobuftest.Fill(d, seed, o)
	m := dynamic.NewMessage(tw.Dyn.Descriptor())
	o.Extensions = nil
	for _, xt := range tw.DynExts {
		o.Extensions = append(o.Extensions, dynamic.NewExtensionType(xt.TypeDescriptor().Descriptor()))
	}
	protobuftest.Fill(m, seed, o)
	return d.Interface(), m
}

// Recursive returns a TestRecursive chain of depth messages, the root
// included, and the field that links them.
func Recursive(t testing.TB, depth int) (*dynamic.Message, protoreflect.FieldDescriptor) {
	t.Helper()
	md := protobuftest.TwinByName("protolayout.test2.TestRecursive").Dyn.Descriptor()
	child := md.Fields().ByName("child")
	root := dynamic.NewMessage(md)
	m := root
	for range depth - 1 {
		m = m.Mutable(child).Message().(*dynamic.Message)
	}
	return root, child
}
