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

func valid[T text](s T) bool {
	n := len(s)
	if n < 8 {
		// Short strings are mostly ASCII: two overlapping loads tell.
		switch {
		case n >= 4:
			if (load32(s)|load32(s[n-4:]))&0x80808080 == 0 {
				return true
			}
		case n >= 2:
			if (uint16(s[0])|uint16(s[1])|uint16(s[n-2])|uint16(s[n-1]))&0x80 == 0 {
				return true
			}
		case n == 1:
			return s[0] < 0x80
		default:
			return true
		}
	}
	p := s
	for {
		// Skip ASCII, 32 and then 8 bytes at a time, up to the first
		// non-ASCII byte.
		for len(p) >= 32 && (load64(p)|load64(p[8:])|load64(p[16:])|load64(p[24:]))&hiBits == 0 {
			p = p[32:]
		}
		for len(p) >= 8 {
			if m := load64(p) & hiBits; m != 0 {
				p = p[bits.TrailingZeros64(m)>>3:]
				break
			}
			p = p[8:]
		}
		if len(p) < 8 {
			// The last bytes: when the string is long enough, its last
			// word holds them, above the bytes already checked.
			if n >= 8 {
				m := load64(s[n-8:]) >> (64 - 8*uint(len(p))) & hiBits
				if m == 0 {
					return true
				}
				p = p[bits.TrailingZeros64(m)>>3:]
			} else {
				for len(p) > 0 && p[0] < 0x80 {
					p = p[1:]
				}
				if len(p) == 0 {
					return true
				}
			}
		}
		// p[0] is not ASCII: check multi-byte runes up to the next ASCII
		// byte.
		for {
			c := p[0]
			switch {
			case c < 0xE0:
				// C2..DF and one continuation byte; 80..C1 never lead.
				if len(p) < 2 || c < 0xC2 || p[1]^0x80 >= 0x40 {
					return false
				}
				p = p[2:]
			case c < 0xF0:
				// E0..EF: the code point must be at least U+0800 and
				// not a surrogate. r is the code point >> 6.
				if len(p) < 3 {
					return false
				}
				b1, b2 := p[1]^0x80, p[2]^0x80
				r := uint32(c&0x0F)<<6 | uint32(b1)
				if b1|b2 >= 0x40 || r < 0x20 || r-0x360 < 0x20 {
					return false
				}
				p = p[3:]
			default:
				// F0..F4: the code point must be U+10000..U+10FFFF.
				// r is the code point >> 12; F5..FF give r > 0x10F.
				if len(p) < 4 {
					return false
				}
				b1, b2, b3 := p[1]^0x80, p[2]^0x80, p[3]^0x80
				r := uint32(c&0x0F)<<6 | uint32(b1)
				if b1|b2|b3 >= 0x40 || r-0x10 > 0xFF {
					return false
				}
				p = p[4:]
			}
			if len(p) == 0 {
				return true
			}
			if p[0] < 0x80 {
				break
			}
		}
	}
}
