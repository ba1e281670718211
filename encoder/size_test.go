package encoder_test

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest/gen/test2pb"
	"github.com/protolayout/protolayout/protobuftest/gen/test3pb"
)

// TestSizeTwins checks what the two Size methods document:
// MarshalOptions.Size returns an int, as proto.MarshalOptions.Size does,
// 0 for a message it cannot encode within its limits; Encoder.Size returns
// the same size, and the error that tells such a message from an empty
// one. Neither validates UTF-8 nor checks required fields.
func TestSizeTwins(t *testing.T) {
	cycle := &test3pb.TestRecursive{Value: 1}
	cycle.Child = cycle
	deep := &test3pb.TestRecursive{Child: &test3pb.TestRecursive{Child: &test3pb.TestRecursive{Child: &test3pb.TestRecursive{}}}}
	big := &test3pb.TestAllTypes{SingularString: string(make([]byte, 100))}
	utf8 := &test3pb.TestAllTypes{SingularString: "\xff"}
	partial := &test2pb.TestRequired{R5: proto.Int32(1)}
	checked := encoder.MarshalOptions{Checked: true}
	cases := []struct {
		name string
		o    encoder.MarshalOptions
		m    proto.Message
		n    int   // the size, or 0
		err  error // what Encoder.Size reports
	}{
		{"empty", checked, &test3pb.TestAllTypes{}, 0, nil},
		{"nil", checked, nil, 0, nil},
		{"depth", encoder.MarshalOptions{Checked: true, MaxDepth: 3}, deep, 0, encoder.ErrDepthExceeded},
		{"cycle", checked, cycle, 0, encoder.ErrCycle},
		{"size", encoder.MarshalOptions{MaxSize: 50}, big, 0, encoder.ErrSizeExceeded},
		{"size, checked", encoder.MarshalOptions{Checked: true, MaxSize: 50}, big, 0, encoder.ErrSizeExceeded},
		{"invalid UTF-8", checked, utf8, proto.Size(utf8), nil},
		{"required missing", checked, partial, proto.Size(partial), nil},
	}
	for _, c := range cases {
		if n := c.o.Size(c.m); n != c.n {
			t.Errorf("%s: MarshalOptions.Size = %d, want %d", c.name, n, c.n)
		}
		n, err := encoder.NewEncoder(c.o).Size(c.m)
		if n != c.n || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Errorf("%s: Encoder.Size = %d, %v; want %d, %v", c.name, n, err, c.n, c.err)
		}
		if err != nil && !errors.Is(err, proto.Error) {
			t.Errorf("%s: %v is not a proto.Error", c.name, err)
		}
	}
}
