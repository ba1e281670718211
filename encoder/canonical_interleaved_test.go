package encoder_test

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/testeditionspb"
)

// TestCanonicalInterleavedExtensions: under the canonical profiles the
// generated encoder merges the extensions set in a type whose extension
// ranges start below its last field among its fields by number itself,
// in open, hybrid and Opaque messages, fields and extensions set in every
// combination (nested too), byte for byte as the walk (over the dynamicpb
// twin) and the reference canonical encoding write them, and without a
// walk step.
func TestCanonicalInterleavedExtensions(t *testing.T) {
	var msgs []proto.Message
	// InterleavedExtensions: low 1, extensions 150 (a string) and 151 (a
	// message), high 300, children 301.
	for mask := range 1 << 5 {
		m := &testeditionspb.InterleavedExtensions{}
		if mask&1 != 0 {
			m.Low = proto.String("low")
		}
		if mask&2 != 0 {
			proto.SetExtension(m, testeditionspb.E_InterleavedString, "x150")
		}
		if mask&4 != 0 {
			inner := &testeditionspb.InterleavedExtensions{Low: proto.String("in"), High: proto.String("hi")}
			proto.SetExtension(inner, testeditionspb.E_InterleavedString, "nested")
			proto.SetExtension(m, testeditionspb.E_InterleavedMessage, inner)
		}
		if mask&8 != 0 {
			m.High = proto.String("high")
		}
		if mask&16 != 0 {
			c := &testeditionspb.InterleavedExtensions{High: proto.String("c")}
			proto.SetExtension(c, testeditionspb.E_InterleavedMessage, &testeditionspb.InterleavedExtensions{})
			m.Children = []*testeditionspb.InterleavedExtensions{{}, c}
		}
		msgs = append(msgs, m)
	}
	// OneofOrder: oneof members 1, 3 and 9, fields 10, 20, 30 and 200,
	// extensions 101 and 150 between them.
	for mask := range 1 << 4 {
		m := &test2pb.OneofOrder{Z: proto.Int32(30), After: proto.Int32(200)}
		if mask&1 != 0 {
			m.Second = &test2pb.OneofOrder_S9{S9: 9}
		}
		if mask&2 != 0 {
			m.First = &test2pb.OneofOrder_F3{F3: 3}
			m.B = proto.Int32(10)
		}
		if mask&4 != 0 {
			proto.SetExtension(m, test2pb.E_OrderExt101, int32(101))
		}
		if mask&8 != 0 {
			proto.SetExtension(m, test2pb.E_OrderExt150, int32(150))
			m.A = proto.Int32(20)
		}
		msgs = append(msgs, m)
	}
	for _, g := range msgs {
		for _, profile := range []encoder.Profile{encoder.Canonical, encoder.Signing} {
			opts := encoder.MarshalOptions{Canonical: profile}
			walked := protobuftest.DynamicTwin(g)
			want, err := opts.Marshal(walked)
			if err != nil {
				t.Fatalf("%v, %v: the walk: %v", g, profile, err)
			}
			ref, err := refCanonical(g.ProtoReflect(), profile)
			if err != nil || !slices.Equal(ref, want) {
				t.Fatalf("%v, %v: the walk differs from the reference (%v)", g, profile, err)
			}
			for _, m := range []proto.Message{g, protobuftest.VariantTwin(g, protobuftest.APIHybrid),
				protobuftest.VariantTwin(g, protobuftest.APIOpaque), protobuftest.DynamicMessageTwin(g)} {
				enc := encoder.NewEncoder(opts)
				got, err := enc.Marshal(m)
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("%v, %v, %T: %x, %v; the walk: %x", g, profile, m, got, err, want)
				}
				if steps := encoder.WalkStats(enc).Steps; steps != 0 {
					t.Errorf("%v, %v, %T: %d walk steps", g, profile, m, steps)
				}
				if n, err := enc.Size(m); err != nil || n != len(want) {
					t.Errorf("%v, %v, %T: size %d, %v; want %d", g, profile, m, n, err, len(want))
				}
			}
		}
	}
}
