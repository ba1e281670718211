package protobuftest

import (
	"math"
	"testing"

	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

func TestQuietFloat32NaNs(t *testing.T) {
	snan := math.Float32frombits(0x7f803030)
	m := &test3pb.TestAllTypes{
		SingularFloat:  snan,
		RepeatedFloat:  []float32{1, snan},
		SingularDouble: math.NaN(),
		SingularNestedMessage: &test3pb.TestAllTypes_NestedMessage{
			Corecursive: &test3pb.TestAllTypes{OptionalFloat: &snan},
		},
	}
	QuietFloat32NaNs(m)
	for _, f := range []float32{m.SingularFloat, m.RepeatedFloat[1], m.SingularNestedMessage.Corecursive.GetOptionalFloat()} {
		if bits := math.Float32bits(f); bits != 0x7fc03030 {
			t.Errorf("bits %#x, want the quiet 0x7fc03030", bits)
		}
	}
	if m.RepeatedFloat[0] != 1 || !math.IsNaN(m.SingularDouble) {
		t.Error("other values changed")
	}
}
