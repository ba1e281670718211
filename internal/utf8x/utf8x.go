// Package utf8x validates UTF-8 faster than unicode/utf8 for the strings a
// protobuf encoder meets, with exactly the same answers.
//
// Protobuf requires string fields to hold valid UTF-8, so every string the
// encoder writes passes through a validator, and unicode/utf8.ValidString
// takes a large share of the encoding time. It skips ASCII eight bytes at a
// time only up to the first non-ASCII byte, and from there goes byte by byte
// to the end with a table lookup and branches per rune. Here:
//
//   - strings of up to 32 bytes that are all ASCII, the most common case, are
//     told by two to four overlapping loads, with no loop;
//   - ASCII is skipped a word, 64 or 32 bytes at a time, jumping straight to
//     the first non-ASCII byte of a word, and the last bytes of a string are
//     checked with one overlapping load instead of a byte loop;
//   - from a non-ASCII byte on, an automaton of nine states checks eight
//     bytes per step, one table lookup and one shift per byte and no branch,
//     until a step ends between runes before a word of ASCII: then the ASCII
//     skip takes over again.
//
// The answers are those of unicode/utf8 (RFC 3629): no overlong encodings, no
// surrogates (U+D800 to U+DFFF), nothing above U+10FFFF, no truncated
// sequences and no stray continuation bytes. The tests compare the two on
// every string of up to three bytes, on the four-byte boundary cases, on all
// of those embedded at every offset of ASCII padding, and on random strings.
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

// valid is ValidString and Valid, compiled once for strings and once for
// byte slices.
func valid[T text](s T) bool {
	n := len(s)
	i := 0
	// Short strings are mostly ASCII: overlapping loads tell.
	if n < 8 {
		if n < 4 {
			if n < 2 {
				return n == 0 || s[0] < 0x80
			}
			if (s[0]|s[1]|s[n-2]|s[n-1])&0x80 == 0 {
				return true
			}
		} else if (load32(s)|load32(s[n-4:]))&0x80808080 == 0 {
			return true
		}
	} else if n <= 16 {
		if (load64(s)|load64(s[n-8:]))&hiBits == 0 {
			return true
		}
	} else if n <= 32 {
		if (load64(s)|load64(s[8:])|load64(s[n-16:])|load64(s[n-8:]))&hiBits == 0 {
			return true
		}
	}
	for {
		// Skip ASCII a word at a time, and 64 or 32 bytes at a time once
		// a word is clean, up to the first non-ASCII byte.
		for n-i >= 8 {
			if m := load64(s[i:]) & hiBits; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto multi
			}
			i += 8
			for n-i >= 64 {
				x := s[i:]
				_ = x[63]
				if (load64(x)|load64(x[8:])|load64(x[16:])|load64(x[24:])|
					load64(x[32:])|load64(x[40:])|load64(x[48:])|load64(x[56:]))&hiBits != 0 {
					break
				}
				i += 64
			}
			if n-i >= 32 {
				x := s[i:]
				if (load64(x)|load64(x[8:])|load64(x[16:])|load64(x[24:]))&hiBits == 0 {
					i += 32
				}
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
		// s[i] is not ASCII: run the automaton over words up to one that
		// starts at a rune boundary and holds only ASCII.
		state := uint64(accept)
		for n-i >= 8 {
			x := s[i:]
			_ = x[7]
			state = dfa[x[0]] >> (state & 63)
			state = dfa[x[1]] >> (state & 63)
			state = dfa[x[2]] >> (state & 63)
			state = dfa[x[3]] >> (state & 63)
			state = dfa[x[4]] >> (state & 63)
			state = dfa[x[5]] >> (state & 63)
			state = dfa[x[6]] >> (state & 63)
			state = dfa[x[7]] >> (state & 63)
			i += 8
			if state&63 == accept {
				if n-i < 8 || load64(s[i:])&hiBits == 0 {
					break
				}
			} else if state&63 == reject {
				return false
			}
		}
		if n-i < 8 {
			for ; i < n; i++ {
				state = dfa[s[i]] >> (state & 63)
			}
			return state&63 == accept
		}
	}
}

// The automaton's states are shift counts into a row of dfa: the row of byte
// b holds, at bit k, the state that b leads to from state k.
const (
	accept     = 6 * iota // between runes
	reject                // seen an invalid sequence: stays
	need1                 // one continuation byte to go
	need2                 // two to go
	need3                 // three to go
	needA0                // after E0: A0..BF (no overlong), then one
	need80to9F            // after ED: 80..9F (no surrogate), then one
	need90                // after F0: 90..BF (no overlong), then two
	need80to8F            // after F4: 80..8F (not above U+10FFFF), then two
)

// dfa is the UTF-8 automaton of RFC 3629, one row per byte.
var dfa = func() (t [256]uint64) {
	next := func(state uint64, b byte) uint64 {
		in := func(lo, hi byte) bool { return lo <= b && b <= hi }
		switch state {
		case accept:
			switch {
			case b < 0x80:
				return accept
			case in(0xC2, 0xDF):
				return need1
			case b == 0xE0:
				return needA0
			case b == 0xED:
				return need80to9F
			case in(0xE1, 0xEF):
				return need2
			case b == 0xF0:
				return need90
			case in(0xF1, 0xF3):
				return need3
			case b == 0xF4:
				return need80to8F
			}
		case need1:
			if in(0x80, 0xBF) {
				return accept
			}
		case need2:
			if in(0x80, 0xBF) {
				return need1
			}
		case need3:
			if in(0x80, 0xBF) {
				return need2
			}
		case needA0:
			if in(0xA0, 0xBF) {
				return need1
			}
		case need80to9F:
			if in(0x80, 0x9F) {
				return need1
			}
		case need90:
			if in(0x90, 0xBF) {
				return need2
			}
		case need80to8F:
			if in(0x80, 0x8F) {
				return need2
			}
		}
		return reject
	}
	for b := range t {
		for state := uint64(accept); state <= need80to8F; state += 6 {
			t[b] |= next(state, byte(b)) << state
		}
	}
	return t
}()
