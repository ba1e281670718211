// Package utf8x validates UTF-8 faster than unicode/utf8 for the strings a
// protobuf encoder meets, with exactly the same answers.
//
// Protobuf requires string fields to hold valid UTF-8, so every string the
// encoder writes passes through a validator, and unicode/utf8.ValidString
// takes a large share of the encoding time. It skips ASCII eight bytes at a
// time only up to the first non-ASCII byte and goes byte by byte from there
// to the end. ValidString and Valid here return to the word-wide ASCII skip
// after every multi-byte rune, jump straight to the first non-ASCII byte of a
// word, check the last bytes of a string with one overlapping load instead of
// a byte loop, and decode multi-byte runes with arithmetic on the code point
// rather than table lookups.
//
// The answers are those of unicode/utf8 (RFC 3629): no overlong encodings, no
// surrogates (U+D800 to U+DFFF), nothing above U+10FFFF, no truncated
// sequences and no stray continuation bytes. The tests compare the two on
// every string of up to three bytes, on the four-byte boundary cases at every
// alignment, and on random strings.
package utf8x

import "math/bits"

// hiBits has the top bit of each byte of a word set: a word of ASCII bytes has
// none of them.
const hiBits = 0x8080808080808080

// text is what the validator reads: a string or a byte slice.
type text interface{ ~string | ~[]byte }

// ValidString reports whether s is entirely valid UTF-8. It returns what
// unicode/utf8.ValidString returns for every s, and exists because it is
// faster on the short ASCII names and the mixed text that protobuf strings
// hold.
func ValidString(s string) bool { return valid(s) }

// Valid reports whether p is entirely valid UTF-8. It returns what
// unicode/utf8.Valid returns for every p; see ValidString.
func Valid(p []byte) bool { return valid(p) }

// load64 reads the first eight bytes of s as a little-endian word.
func load64[T text](s T) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// load32 reads the first four bytes of s as a little-endian word.
func load32[T text](s T) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// tail32 reads the last 1 to 3 bytes of s as a little-endian word, the
// missing high bytes zero: a zero byte is not a continuation byte, so a
// sequence cut short by the end of s fails as it would on its own.
func tail32[T text](s T) uint32 {
	var w uint32
	for j := len(s) - 1; j >= 0; j-- {
		w = w<<8 | uint32(s[j])
	}
	return w
}

func valid[T text](s T) bool {
	n := len(s)
	i := 0
	if n < 8 {
		// Short strings are mostly ASCII: two overlapping loads tell.
		switch {
		case n >= 4:
			if (load32(s)|load32(s[n-4:]))&0x80808080 == 0 {
				return true
			}
		case n >= 2:
			if (s[0]|s[1]|s[n-2]|s[n-1])&0x80 == 0 {
				return true
			}
		case n == 1:
			return s[0] < 0x80
		default:
			return true
		}
	}
	for {
		// Skip ASCII a word at a time, and 32 bytes at a time once a
		// word is clean, up to the first non-ASCII byte.
		for n-i >= 8 {
			if m := load64(s[i:]) & hiBits; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto multi
			}
			i += 8
			for n-i >= 32 {
				x := s[i:]
				if (load64(x)|load64(x[8:])|load64(x[16:])|load64(x[24:]))&hiBits != 0 {
					break
				}
				i += 32
			}
		}
		// Fewer than eight bytes are left: the string's last word holds
		// them, above the bytes already checked, unless the string is
		// shorter than a word.
		if i == n {
			return true
		}
		if s[i] < 0x80 {
			if n >= 8 {
				m := load64(s[n-8:]) >> ((64 - 8*uint(n-i)) & 63) & hiBits
				if m == 0 {
					return true
				}
				i += bits.TrailingZeros64(m) >> 3
			} else {
				for s[i] < 0x80 {
					if i++; i == n {
						return true
					}
				}
			}
		}
	multi:
		// s[i] is not ASCII: check runes up to the next ASCII byte.
		for {
			var w uint32
			if n-i >= 4 {
				w = load32(s[i:])
			} else {
				w = tail32(s[i:])
			}
			if w&0xC0E0 == 0x80C0 {
				// C2..DF and a continuation byte; C0 and C1
				// would encode ASCII.
				if w&0x1E == 0 {
					return false
				}
				i += 2
				if w&0x800000 == 0 {
					break
				}
			} else if w&0xC0C0F0 == 0x8080E0 {
				// E0..EF and two continuation bytes: E0 needs
				// A0..BF next (no overlong), ED 80..9F (no
				// surrogate).
				if t := w & 0x200F; t == 0 || t == 0x200D {
					return false
				}
				i += 3
				if w&0x80000000 == 0 {
					break
				}
			} else if w&0xC0C0C0F8 == 0x808080F0 {
				// F0..F7 and three continuation bytes: r is the
				// code point >> 12, U+10000..U+10FFFF only.
				if r := (w&7)<<6 | (w>>8)&0x3F; r-0x10 > 0xFF {
					return false
				}
				i += 4
				if i == n || s[i] < 0x80 {
					break
				}
			} else {
				return false
			}
		}
	}
}
