package encoder_test

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"
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

// Encoding for a hash: a google.protobuf.Struct, whose fields are a map,
// in the canonical encoding (map entries sorted by key, so the same
// content always gives the same bytes), which the checker accepts; the
// Signing profile (ADR-027) refuses maps.
func ExampleMarshalOptions_canonical() {
	msg, _ := structpb.NewStruct(map[string]any{"b": 1, "a": "x"})
	b, err := encoder.MarshalOptions{Canonical: encoder.Canonical}.Marshal(msg)
	if err == nil {
		err = encoder.CheckCanonical(b, msg.ProtoReflect().Descriptor(), encoder.Canonical)
	}
	fmt.Printf("% x (%v)\n", b, err)
	_, err = encoder.MarshalOptions{Canonical: encoder.Signing}.Marshal(msg)
	fmt.Println(errors.Is(err, encoder.ErrMapField))
	// Output:
	// 0a 08 0a 01 61 12 03 1a 01 78 0a 0e 0a 01 62 12 09 11 00 00 00 00 00 00 f0 3f (<nil>)
	// true
}
