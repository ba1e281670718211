package main

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"

	"github.com/protolayout/protolayout/benchmarks/internal/shapespb"
)

// The five small shapes, each one message of benchmarks/proto/shapes.proto
// drawn from its own stream of the fixed seed. Changing a stream, a count or
// a word list changes the message, so results before and after are not
// comparable.

// shapeRand returns the generator of one shape.
func shapeRand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed1, seed2+stream))
}

// scalarWorkload is one flat message of twelve numeric fields: varints of
// one to ten bytes, zigzag, fixed32, fixed64, float, double and bool.
func scalarWorkload() (*workload, error) {
	r := shapeRand(1)
	m := &shapespb.Scalar{
		Int32Value:    -1 - r.Int32N(1<<20), // negative: a ten-byte varint
		Int64Value:    r.Int64N(1 << 50),
		Uint32Value:   r.Uint32(),
		Uint64Value:   r.Uint64(),
		Sint32Value:   -r.Int32N(1 << 12),
		Sint64Value:   r.Int64N(1<<40) - 1<<39,
		Fixed32Value:  r.Uint32(),
		Fixed64Value:  r.Uint64(),
		Sfixed64Value: -r.Int64(),
		FloatValue:    float32(r.NormFloat64()),
		DoubleValue:   r.Float64() * 1e6,
		BoolValue:     true,
	}
	return newWorkload("scalar", "protolayout.benchmarks.shapes.Scalar, 12 numeric fields of mixed kinds", m)
}

// Word lists of the text shape, by script.
var (
	asciiWords = []string{
		"the", "encoder", "writes", "every", "field", "in", "order", "of", "its", "number",
		"and", "a", "length", "prefix", "before", "each", "nested", "message", "so", "that",
		"readers", "can", "skip", "what", "they", "do", "not", "know", "schema", "wire",
		"buffer", "bytes", "runtime", "descriptor", "layout", "cache", "stream", "value",
	}
	latinWords = []string{
		"über", "Straße", "café", "naïve", "déjà", "façade", "señor", "mañana", "smørbrød",
		"Ærø", "crème", "brûlée", "Zürich", "garçon", "Łódź", "čeština", "ångström", "größe",
		"élève", "forêt", "piñata", "Ålesund", "jalapeño", "fiancée",
	}
	greekCyrillicWords = []string{
		"άλφα", "βήτα", "γάμμα", "δέλτα", "λόγος", "φιλοσοφία", "θάλασσα", "ψυχή", "ωκεανός",
		"привет", "мир", "книга", "вода", "сеть", "данные", "поток", "сообщение", "буфер",
		"схема", "поле",
	}
	japaneseWords = []string{
		"日本語", "東京", "データ", "ネットワーク", "符号化", "メッセージ", "速度", "測定",
		"文字列", "処理", "こんにちは", "ありがとう", "プロトコル", "バッファ", "構造", "記述子",
	}
	emojiWords = []string{
		"🚀", "✨", "🔥", "📦", "🧪", "🌍", "👍", "🎉", "⚡", "🐢", "deploy", "shipped", "tests",
		"green", "fast", "🙂", "🛰️", "👩‍💻",
	}
)

// prose returns words from list joined into sentences, about n bytes.
func prose(r *rand.Rand, list []string, sep string, n int) string {
	var b strings.Builder
	for b.Len() < n {
		words := 4 + r.IntN(9)
		for i := range words {
			if i > 0 {
				b.WriteString(sep)
			}
			w := list[r.IntN(len(list))]
			if i == 0 && w[0] >= 'a' && w[0] <= 'z' {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
		}
		b.WriteString(". ")
	}
	return b.String()
}

// textWorkload is one document of long UTF-8 strings, about 5 KB, a quarter
// of it ASCII and the rest runes of two, three and four bytes.
func textWorkload() (*workload, error) {
	r := shapeRand(2)
	m := &shapespb.Text{
		Title:         "Grüße aus 東京: ein Bericht über Encoder 🚀",
		Body:          prose(r, asciiWords, " ", 1500),
		Latin:         prose(r, latinWords, " ", 1000),
		GreekCyrillic: prose(r, greekCyrillicWords, " ", 1000),
		Japanese:      prose(r, japaneseWords, "", 1000),
		Emoji:         prose(r, emojiWords, " ", 500),
	}
	for range 8 {
		m.Tags = append(m.Tags, latinWords[r.IntN(len(latinWords))], japaneseWords[r.IntN(len(japaneseWords))])
	}
	return newWorkload("text", "protolayout.benchmarks.shapes.Text, 6 long UTF-8 strings and 16 tags", m)
}

// Fan-out of the nested shape: children of the top message, parts of each
// Level3 and extra leaves of each Level4.
const (
	nestedChildren = 3
	nestedParts    = 3
	nestedMore     = 2
)

// nestedWorkload is five levels of messages: 3 Level2, each with a Level3
// of 3 Level4, each with 1 + 2 Level5; 43 messages in all.
func nestedWorkload() (*workload, error) {
	r := shapeRand(3)
	level5 := func() *shapespb.Level5 {
		return &shapespb.Level5{
			Code:  r.Int32N(600),
			Text:  asciiWords[r.IntN(len(asciiWords))],
			Stamp: uint64(otlpBaseTimeUnixNs) + r.Uint64N(1e12),
		}
	}
	m := &shapespb.Nested{Name: "root", Id: r.Int64N(1 << 40)}
	for i := range nestedChildren {
		l3 := &shapespb.Level3{Score: r.Float64(), Label: fmt.Sprintf("detail-%d", i)}
		for range nestedParts {
			l4 := &shapespb.Level4{Offset: r.Int64N(1<<20) - 1<<19, Leaf: level5()}
			for range nestedMore {
				l4.More = append(l4.More, level5())
			}
			l3.Parts = append(l3.Parts, l4)
		}
		m.Children = append(m.Children, &shapespb.Level2{
			Key:     fmt.Sprintf("%s/%d", asciiWords[r.IntN(len(asciiWords))], i),
			Count:   uint32(r.IntN(1000)),
			Detail:  l3,
			Enabled: i%2 == 0,
		})
	}
	return newWorkload("nested", "protolayout.benchmarks.shapes.Nested, 5 levels, 43 messages", m)
}

// collectionsEntries is the length of every list and map of the
// collections shape.
const collectionsEntries = 50

// collectionsWorkload is packed int64 and sint32 lists, a list of strings, a
// map<string, int64> and a map<string, Item>, 50 entries each, with the map
// keys inserted in random order.
func collectionsWorkload() (*workload, error) {
	r := shapeRand(4)
	m := &shapespb.Collections{
		Counters: make(map[string]int64),
		Items:    make(map[string]*shapespb.Item),
	}
	key := func(seen map[string]bool) string {
		for {
			k := fmt.Sprintf("%s.%s.%d", asciiWords[r.IntN(len(asciiWords))], latinWords[r.IntN(len(latinWords))], r.IntN(100))
			if !seen[k] {
				seen[k] = true
				return k
			}
		}
	}
	counters, items := make(map[string]bool), make(map[string]bool)
	for i := range collectionsEntries {
		// Ids of one to ten bytes as varints (the longest negative);
		// deltas of both signs.
		m.Ids = append(m.Ids, int64(r.Uint64N(uint64(1)<<(7*(1+i%9)))))
		m.Deltas = append(m.Deltas, r.Int32N(1<<16)-1<<15)
		m.Names = append(m.Names, fmt.Sprintf("%s-%s", asciiWords[r.IntN(len(asciiWords))], greekCyrillicWords[r.IntN(len(greekCyrillicWords))]))
		m.Counters[key(counters)] = r.Int64N(1 << 32)
		m.Items[key(items)] = &shapespb.Item{
			Title:   prose(r, asciiWords, " ", 20),
			Version: int64(1 + r.IntN(100)),
			Price:   float64(r.IntN(100000)) / 100,
			Deleted: r.IntN(10) == 0,
		}
	}
	return newWorkload("collections",
		fmt.Sprintf("protolayout.benchmarks.shapes.Collections, %d entries in each of 3 lists and 2 maps", collectionsEntries), m)
}

// largePayload is the size of the large shape's bytes field.
const largePayload = 1 << 20

// largeWorkload is one 1 MiB bytes field of random content, with a name, a
// content type and a CRC-32C.
func largeWorkload() (*workload, error) {
	r := shapeRand(5)
	payload := make([]byte, largePayload)
	for i := 0; i < len(payload); i += 8 {
		v := r.Uint64()
		for j := range 8 {
			payload[i+j] = byte(v >> (8 * j))
		}
	}
	m := &shapespb.Large{
		Name:        "uploads/2026/01/01/blob-0001.bin",
		ContentType: "application/octet-stream",
		Payload:     payload,
		Crc32C:      crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)),
	}
	return newWorkload("large", "protolayout.benchmarks.shapes.Large, a 1 MiB bytes field and 3 small fields", m)
}
