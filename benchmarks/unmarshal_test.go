package main

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protolayout/protolayout/dynamic"
)

// unmarshalTargets are the three kinds of message the decode benchmarks
// fill from a workload's reference bytes: the generated type, dynamicpb
// and protolayout's dynamic package over the descriptor loaded at run
// time.
func unmarshalTargets(w *workload) []struct {
	name string
	new  func() proto.Message
} {
	md := w.dynamic.ProtoReflect().Descriptor()
	return []struct {
		name string
		new  func() proto.Message
	}{
		{"generated", func() proto.Message { return w.generated.ProtoReflect().New().Interface() }},
		{"dynamicpb", func() proto.Message { return dynamicpb.NewMessage(md) }},
		{"dynamic", func() proto.Message { return dynamic.NewMessage(md) }},
	}
}

// unmarshalWorkloads are the workloads the decode benchmarks use.
var unmarshalWorkloads = map[string]bool{"otlp": true, "descriptors": true}

// TestUnmarshalTargets checks that the three targets decode each
// workload to the same content.
func TestUnmarshalTargets(t *testing.T) {
	ws, err := workloads()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if !unmarshalWorkloads[w.Name] {
			continue
		}
		for _, tg := range unmarshalTargets(w) {
			m := tg.new()
			if err := proto.Unmarshal(w.Ref(0), m); err != nil {
				t.Fatalf("%s/%s: %v", w.Name, tg.name, err)
			}
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, w.Ref(0)) {
				t.Errorf("%s/%s: decoding then encoding changes the bytes", w.Name, tg.name)
			}
		}
	}
}

// BenchmarkUnmarshal decodes the OTLP and descriptors workloads with
// proto.Unmarshal into a new message of each target.
func BenchmarkUnmarshal(b *testing.B) {
	ws, err := workloads()
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range ws {
		if !unmarshalWorkloads[w.Name] {
			continue
		}
		data := w.Ref(0)
		for _, tg := range unmarshalTargets(w) {
			b.Run(w.Name+"/"+tg.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := proto.Unmarshal(data, tg.new()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
