package progress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run counts 1 MiB through a Bar on w, as a command reading its input does.
func run(t *testing.T, w io.Writer, o Options) {
	t.Helper()
	b := New(w, o)
	r := b.Reader(strings.NewReader(strings.Repeat("x", 1<<20)))
	buf := make([]byte, 4096)
	for {
		_, err := r.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(0) // let the clock move between reads
	}
	b.Finish()
	b.Add(1) // after Finish: nothing
	b.Finish()
}

func TestQuietWhenNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, o := range []Options{
		{Description: "reading", Total: 1 << 20, Bytes: true, Delay: -1},
		{Description: "reading", Total: -1, Bytes: true, Delay: -1},
		{Description: "iterations", Total: 100, Delay: -1},
	} {
		run(t, f, o)
		run(t, &buf, o)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != 0 {
		t.Errorf("a Bar on a regular file wrote %d bytes (err %v), want none", fi.Size(), err)
	}
	if buf.Len() != 0 {
		t.Errorf("a Bar on a buffer wrote %q, want nothing", buf.String())
	}
}

// fakeTerminal makes every writer count as a terminal for the test.
func fakeTerminal(t *testing.T) {
	old := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { isTerminal = old })
}

func TestQuietOnShortRuns(t *testing.T) {
	fakeTerminal(t)
	var buf bytes.Buffer
	run(t, &buf, Options{Description: "reading", Total: 1 << 20, Bytes: true, Delay: time.Hour})
	if buf.Len() != 0 {
		t.Errorf("a run shorter than the delay wrote %q, want nothing", buf.String())
	}
}

func TestDrawsOnATerminal(t *testing.T) {
	fakeTerminal(t)
	for _, o := range []Options{
		{Description: "reading", Total: 1 << 20, Bytes: true, Delay: -1},
		{Description: "reading", Total: -1, Bytes: true, Delay: -1},
	} {
		var buf bytes.Buffer
		run(t, &buf, o)
		if !strings.Contains(buf.String(), "reading") {
			t.Errorf("Total %d: the bar wrote %q, want its description", o.Total, buf.String())
		}
	}
}

func TestNilBar(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Finish()
	if _, err := io.ReadAll(b.Reader(strings.NewReader("abc"))); err != nil {
		t.Fatal(err)
	}
}
