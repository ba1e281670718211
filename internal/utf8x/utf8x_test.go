package utf8x

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// check compares both functions with unicode/utf8 on b. (It calls t only on
// failure: t.Helper costs more than the validators.)
func check(t *testing.T, b []byte) {
	want := utf8.Valid(b)
	if Valid(b) != want || ValidString(string(b)) != want {
		t.Helper()
		t.Fatalf("% x: Valid %v, ValidString %v, unicode/utf8 %v", b, Valid(b), ValidString(string(b)), want)
	}
}

// boundary holds the byte values where the classes of UTF-8 bytes change.
var boundary = []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF}

func TestOneAndTwoBytes(t *testing.T) {
	var b [2]byte
	for i := range 256 {
		b[0] = byte(i)
		check(t, b[:1])
		for j := range 256 {
			b[1] = byte(j)
			check(t, b[:])
		}
	}
}

// TestThreeBytes tries every string of three bytes, the first byte's halves
// in parallel.
func TestThreeBytes(t *testing.T) {
	for _, half := range [][2]int{{0, 128}, {128, 256}} {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			var b [3]byte
			for i := half[0]; i < half[1]; i++ {
				b[0] = byte(i)
				for j := range 256 {
					b[1] = byte(j)
					for k := range 256 {
						b[2] = byte(k)
						check(t, b[:])
					}
				}
			}
		})
	}
}

// fourByteCases returns four-byte strings led by F0..F4 (and the invalid F5
// and FF), with the second byte taking each of seconds and the third and
// fourth each boundary value.
func fourByteCases(seconds []byte) [][]byte {
	var cases [][]byte
	for _, c := range []byte{0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xFF} {
		for _, b1 := range seconds {
			for _, b2 := range boundary {
				for _, b3 := range boundary {
					cases = append(cases, []byte{c, b1, b2, b3})
				}
			}
		}
	}
	return cases
}

func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestFourBytes(t *testing.T) {
	for _, c := range fourByteCases(allBytes()) {
		check(t, c)
	}
}

// embedCases returns the cases of TestEmbedded: every string of one and two
// bytes; three-byte strings led by every byte, the second and third bytes
// boundary values (every second byte for non-ASCII leads unless short); and
// the four-byte strings of TestFourBytes (second bytes restricted to the
// boundary values if short).
func embedCases(short bool) [][]byte {
	var cases [][]byte
	for i := range 256 {
		cases = append(cases, []byte{byte(i)})
		for j := range 256 {
			cases = append(cases, []byte{byte(i), byte(j)})
		}
	}
	for i := range 256 {
		seconds := boundary
		if i >= 0xE0 && !short {
			seconds = allBytes()
		}
		for _, j := range seconds {
			for _, k := range boundary {
				cases = append(cases, []byte{byte(i), j, k})
			}
		}
	}
	seconds := allBytes()
	if short {
		seconds = boundary
	}
	return append(cases, fourByteCases(seconds)...)
}

// maxPad is the longest ASCII run put before and after each case: past the
// eight-byte words and across a 32-byte block with a case of up to four bytes.
const maxPad = 17

// TestEmbedded puts each case after an ASCII prefix of 0..maxPad bytes and
// before an ASCII suffix of 0..maxPad bytes, so that it meets every position
// in a word, a block and the overlapping last word. ASCII around a string
// neither mends nor breaks it, so the answer is unicode/utf8's on the case
// alone.
func TestEmbedded(t *testing.T) {
	cases := embedCases(testing.Short())
	parts := 2
	for part := range parts {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			pad := strings.Repeat("a", maxPad)
			buf := make([]byte, 0, 2*maxPad+4)
			for ci := part; ci < len(cases); ci += parts {
				c := cases[ci]
				want := utf8.Valid(c)
				buf = append(append(append(buf[:0], pad...), c...), pad...)
				s := string(buf)
				for pre := 0; pre <= maxPad; pre++ {
					for suf := 0; suf <= maxPad; suf++ {
						lo, hi := maxPad-pre, maxPad+len(c)+suf
						if Valid(buf[lo:hi]) != want || ValidString(s[lo:hi]) != want {
							t.Fatalf("% x after %d and before %d ASCII bytes: Valid %v, ValidString %v, want %v",
								c, pre, suf, Valid(buf[lo:hi]), ValidString(s[lo:hi]), want)
						}
					}
				}
			}
		})
	}
}

// TestRandom compares with unicode/utf8 on random strings of valid runes of
// every length, ASCII runs and corrupting bytes.
func TestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	runes := []rune{'a', 'Z', ' ', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x3B1, 0x430, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF}
	n := 300000
	if testing.Short() {
		n = 50000
	}
	var b []byte
	valid := 0
	for range n {
		b = b[:0]
		size := rng.IntN(301)
		corrupt := rng.IntN(4) // a quarter of the strings stay valid
		for len(b) < size {
			switch k := rng.IntN(10); {
			case k < 3:
				for m := rng.IntN(20); m > 0; m-- {
					b = append(b, byte('a'+rng.IntN(26)))
				}
			case k < 6:
				b = utf8.AppendRune(b, runes[rng.IntN(len(runes))])
			default:
				b = utf8.AppendRune(b, rng.Int32N(utf8.MaxRune+1))
			}
		}
		b = b[:size]
		if corrupt > 0 {
			for m := rng.IntN(3) + 1; m > 0 && len(b) > 0; m-- {
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			}
		}
		if utf8.Valid(b) {
			valid++
		}
		check(t, b)
	}
	// Guard the generator: both answers must be common.
	if valid < n/5 || valid > n*4/5 {
		t.Fatalf("%d of %d random strings are valid: the mix is off", valid, n)
	}
}

func TestAllocs(t *testing.T) {
	inputs := []string{"", "abc", "héllo wörld, déjà vu", strings.Repeat("日本語 ", 50), "\xed\xa0\x80"}
	for _, s := range inputs {
		b := []byte(s)
		if a := testing.AllocsPerRun(100, func() { ValidString(s); Valid(b) }); a != 0 {
			t.Errorf("%q: %v allocations per call", s, a)
		}
	}
}

// fuzzSeeds are the tricky classes: overlongs, surrogates, out of range,
// never-valid bytes, lone continuation bytes and truncated sequences.
var fuzzSeeds = []string{
	"", "a", "\x7f", "\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2\x80", "\xdf\xbf",
	"\xe0\x80\x80", "\xe0\x9f\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
	"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
	"\xf8\x88\x80\x80\x80", "\xff", "\xfe",
	"\xc3", "\xe6\x97", "\xf0\x9f\x98", "abc\xc3", "abcdefgh\xe6\x97", "abcdefghijklmno\xf0\x9f\x98",
	"\xc3\xa9\x80", "é\xa9", "日本\x80語", "\xf0\x9f\x98\x80\x80",
	"über Straße café", "άλφα βήτα привет мир", "日本語のテキスト", "emoji 😀 smile 🎉",
}

func FuzzValid(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	// ASCII runs, then a multi-byte rune (valid or not) at each offset.
	for off := range 18 {
		for _, r := range []string{"é", "語", "😀", "\xed\xa0\x80", "\xe0\x80\x80", "\xf4\x90\x80\x80", "\xc3"} {
			f.Add([]byte(strings.Repeat("x", off) + r + strings.Repeat("y", off/2)))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), utf8.Valid(b); got != want {
			t.Fatalf("Valid(% x) = %v, unicode/utf8 says %v", b, got, want)
		}
		s := string(b)
		if got, want := ValidString(s), utf8.ValidString(s); got != want {
			t.Fatalf("ValidString(% x) = %v, unicode/utf8 says %v", b, got, want)
		}
		if ShortASCII(s) && !utf8.ValidString(s) || ShortASCII(b) != ShortASCII(s) {
			t.Fatalf("ShortASCII(% x) = %v, unicode/utf8 says %v", b, ShortASCII(s), utf8.ValidString(s))
		}
	})
}

// TestShortASCII checks ShortASCII against its definition on strings of
// every length up to 40, all ASCII and with one byte above 0x7F (the
// lowest, a lead and a continuation byte) at each offset, as strings and
// as byte slices; and that it never calls an invalid string valid.
func TestShortASCII(t *testing.T) {
	for n := range 41 {
		ascii := []byte(strings.Repeat("a~", n)[:n])
		cases := [][]byte{ascii}
		for i := range n {
			for _, c := range []byte{0x80, 0xc3, 0xff} {
				b := append([]byte(nil), ascii...)
				b[i] = c
				cases = append(cases, b)
			}
		}
		for _, b := range cases {
			want := n >= 8 && n <= 32 && utf8.Valid(b) && !strings.ContainsFunc(string(b), func(r rune) bool { return r >= 0x80 })
			if got := ShortASCII(string(b)); got != want {
				t.Errorf("ShortASCII(%q) = %v, want %v", b, got, want)
			}
			if got := ShortASCII(b); got != want {
				t.Errorf("ShortASCII([]byte %q) = %v, want %v", b, got, want)
			}
			if ValidText(b) != utf8.Valid(b) || ValidText(string(b)) != utf8.Valid(b) {
				t.Errorf("ValidText(%q) differs from unicode/utf8", b)
			}
		}
	}
	if a := testing.AllocsPerRun(100, func() { ShortASCII("service.instance.id") }); a != 0 {
		t.Errorf("ShortASCII allocates: %v per call", a)
	}
}
