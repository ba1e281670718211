package encoder_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// FuzzCheckCanonical checks, on arbitrary bytes for any test schema
// message under either profile, that the checker never panics and that it
// accepts exactly the inputs that proto.Unmarshal reads into a dynamicpb
// message and the reference canonical encoder writes back unchanged. The
// one tolerated difference: a float32 signalling NaN, which dynamicpb
// quiets (it holds float32 values as float64), so that only the checker,
// which reads the bits, sees the input's value. The seeds are canonical
// encodings of random messages and single mutations of them; go test
// runs only the seeds (task fuzz-canonical runs the target longer).
func FuzzCheckCanonical(f *testing.F) {
	twins := protobuftest.Twins()
	for i, tw := range twins {
		for _, p := range profiles {
			m := testMessage(tw, uint64(i), p)
			b, err := refCanonical(m, p)
			if err != nil {
				f.Fatal(err)
			}
			strict := p == encoder.Signing
			f.Add(b, uint8(i), strict)
			if len(b) > 2 {
				f.Add(append(b[1:len(b):len(b)], b[0]), uint8(i), strict)
				f.Add(append(b[:len(b):len(b)], b[:2]...), uint8(i), strict)
			}
		}
	}
	f.Add([]byte{0x08, 0x80, 0x00}, uint8(0), false)
	f.Add([]byte{0x0b, 0x0c}, uint8(0), true)
	f.Fuzz(func(t *testing.T, in []byte, which uint8, strict bool) {
		tw := twins[int(which)%len(twins)]
		p := encoder.Canonical
		if strict {
			p = encoder.Signing
		}
		md := tw.Dyn.Descriptor()
		err := checkDyn(in, md, p)
		accepted := err == nil

		m := tw.Dyn.New()
		var want []byte
		same := false
		// A panic of proto.Unmarshal (a known protobuf-go bug, see
		// unmarshalNoPanic) counts as a refusal: the checker refuses
		// such a map entry.
		uo := proto.UnmarshalOptions{Resolver: protobuftest.DynamicTypes()}
		if panicked, uerr := unmarshalNoPanic(uo, in, m.Interface()); !panicked && uerr == nil {
			var rerr error // Signing refuses maps and unknown fields
			want, rerr = refCanonical(m, p)
			same = rerr == nil && bytes.Equal(want, in)
		}
		if accepted == same {
			return
		}
		if accepted && onlyQuietedFloat32NaNs(in, want) {
			return
		}
		t.Fatalf("%s %v: checker %v; decoded and encoded again: %x\ninput:                           %x", tw.Name, p, err, want, in)
	})
}
