package encoder_test

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protolayout/protolayout/encoder"
)

// Checking bytes before signing or hashing them: the canonical encoding
// of a google.protobuf.UInt64Value holding 300, then the same value
// written with a varint one byte longer than needed, then a value of 0,
// which a field without presence never writes.
func ExampleCheckCanonical() {
	md := wrapperspb.UInt64(0).ProtoReflect().Descriptor()
	for _, b := range [][]byte{
		{0x08, 0xac, 0x02},
		{0x08, 0xac, 0x82, 0x00},
		{0x08, 0x00},
	} {
		err := encoder.CheckCanonical(b, md, encoder.Signing)
		var ce *encoder.CanonicalError
		if errors.As(err, &ce) {
			fmt.Printf("% x: %v at offset %d (%s)\n", b, ce.Err, ce.Offset, ce.Field)
			continue
		}
		fmt.Printf("% x: canonical\n", b)
	}
	// Output:
	// 08 ac 02: canonical
	// 08 ac 82 00: varint longer than needed at offset 1 (google.protobuf.UInt64Value.value)
	// 08 00: field without presence written at its default at offset 0 (google.protobuf.UInt64Value.value)
}
