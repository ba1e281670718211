package utf8x

import "encoding/binary"

// ShortASCII reports whether s holds 8 to 32 bytes, all ASCII, and so is
// valid UTF-8; for every other s, valid or not, it reports false, and the
// caller asks ValidText. It is small enough for the compiler to inline,
// which the validators are not, so that
//
//	utf8x.ShortASCII(s) || utf8x.ValidText(s)
//
// tells the strings a protobuf encoder meets most (names, keys, short
// values: three in four strings of the OTLP workload) without a call, and
// the caller need not save its registers around one. Converting a string
// does not copy it (the slice neither escapes nor is written); the loads
// are the overlapping words of the validators' own test of short strings.
func ShortASCII[T text](s T) bool {
	b := []byte(s)
	n := len(b)
	le := binary.LittleEndian
	if n > 16 {
		return n <= 32 && (le.Uint64(b)|le.Uint64(b[8:])|le.Uint64(b[n-16:])|le.Uint64(b[n-8:]))&hiBits == 0
	}
	return n >= 8 && (le.Uint64(b)|le.Uint64(b[n-8:]))&hiBits == 0
}

// ValidText is ValidString or Valid, for code generic over both.
func ValidText[T text](s T) bool { return valid(s) }
