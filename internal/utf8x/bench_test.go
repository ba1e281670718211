package utf8x

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// corpora are the benchmark inputs: the lengths and scripts protobuf strings
// come in.
var corpora = func() []struct{ name, s string } {
	ascii := "The quick brown fox jumps over the lazy dog; request_id=7f3a9c2e, status=OK. "
	// long repeats s to about n bytes, cut at a rune boundary.
	long := func(s string, n int) string {
		s = strings.Repeat(s, n/len(s)+1)
		for !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n]
	}
	latin := long("über Straße café naïve déjà façade señor crème brûlée Ångström smörgåsbord ", 200)
	greek := long("άλφα βήτα γάμμα δέλτα привет мир, как дела? Ελλάδα Москва ", 200)
	cjk := long("日本語のテキスト、中文文本和한국어 텍스트。", 200)
	emoji := long("ok 😀 great 🎉 ship it 🚀 thanks 🙏 fire 🔥 ", 200)
	var mixed strings.Builder
	for mixed.Len() < 2000 {
		mixed.WriteString(ascii)
		mixed.WriteString(latin)
		mixed.WriteString(greek)
		mixed.WriteString(cjk)
		mixed.WriteString(emoji)
	}
	return []struct{ name, s string }{
		{"ascii-0", ""},
		{"ascii-1", ascii[:1]},
		{"ascii-3", ascii[:3]},
		{"ascii-7", ascii[:7]},
		{"ascii-8", ascii[:8]},
		{"ascii-15", ascii[:15]},
		{"ascii-16", ascii[:16]},
		{"ascii-33", ascii[:33]},
		{"ascii-120", long(ascii, 120)},
		{"ascii-1k", long(ascii, 1024)},
		{"latin", latin},
		{"greek-cyrillic", greek},
		{"cjk", cjk},
		{"emoji", emoji},
		{"mixed-long", mixed.String()},
	}
}()

var sink bool

func BenchmarkValidString(b *testing.B) {
	for _, c := range corpora {
		b.Run(c.name, func(b *testing.B) {
			s := c.s
			b.Run("utf8x", func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					sink = ValidString(s)
				}
			})
			b.Run("stdlib", func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					sink = utf8.ValidString(s)
				}
			})
		})
	}
}
