package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protolayout/protolayout/internal/benchreport"
	"github.com/protolayout/protolayout/internal/benchreport/chart"
)

var benchCommand = &command{
	name:     "bench",
	summary:  "time proto.Marshal and protolayout side by side on your own messages",
	synopsis: "(-descriptors FILE | -proto DIR) -type pkg.Msg -messages FILE [-count N] [-benchtime D] [-json] [-svg FILE]",
	doc: `Bench runs the side-by-side report of go run ./benchmarks on the messages of
-messages, held as dynamicpb messages of the type -type names (as a proxy
holds them): proto.Marshal (and with Deterministic), protolayout's
encoder.Marshal and a reused Encoder (and with Deterministic), and the read
floor (the cost of merely reading every field through protoreflect, which no
encoder of dynamicpb messages goes below). Every output is checked against
deterministic proto.Marshal before anything is timed. Each operation encodes
every message of the file; ratios are paired: the median over rounds of the
ratio taken within a round.

-messages is a file of JSON lines if its name ends in .jsonl (one message in
protobuf's JSON mapping per line; blank lines are skipped), and otherwise of
length-delimited binary messages (each a varint length, then the message's
bytes, as protodelim and Java's writeDelimitedTo write them).

On a terminal, a progress bar on stderr shows the time left.
`,
	setup: func(fs *flag.FlagSet) func(*env) error {
		var f benchFlags
		f.schema.register(fs)
		fs.StringVar(&f.messages, "messages", "", "the messages to encode: a `FILE` of JSON lines (.jsonl) or of length-delimited binary messages")
		fs.IntVar(&f.count, "count", 3, "rounds of each contestant; ratios are medians of the ratios within each round")
		fs.StringVar(&f.benchtime, "benchtime", "500ms", "time (or Nx iterations) of each contestant's round, as in go test -benchtime")
		fs.BoolVar(&f.json, "json", false, "write the results as JSON instead of tables")
		fs.StringVar(&f.svg, "svg", "", "also draw the ratios as a bar chart into `FILE` (SVG)")
		return f.run
	},
}

type benchFlags struct {
	schema    schemaFlags
	messages  string
	count     int
	benchtime string
	json      bool
	svg       string
}

func (f *benchFlags) run(e *env) error {
	if f.messages == "" {
		return usageErrorf("bench: -messages FILE is required (see protolayout bench -h)")
	}
	if f.count < 1 {
		return usageErrorf("bench: -count must be at least 1, not %d", f.count)
	}
	sc, mt, err := f.schema.loadMessage()
	if err != nil {
		return err
	}
	md := mt.Descriptor()
	data, err := os.ReadFile(f.messages)
	if err != nil {
		return fmt.Errorf("reading the messages: %w", err)
	}
	var msgs []proto.Message
	if strings.HasSuffix(f.messages, ".jsonl") {
		msgs, err = readJSONLines(f.messages, data, mt, sc)
	} else {
		msgs, err = readDelimited(f.messages, data, mt, sc)
	}
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return fmt.Errorf("%s: no messages", f.messages)
	}

	w, cases, err := benchreport.DynamicWorkload(string(md.FullName()), msgs)
	if err != nil {
		return fmt.Errorf("%s: %s", f.messages, trimProto(err))
	}
	w.Resolver = sc.types
	w.Description = fmt.Sprintf("%d messages from %s", len(msgs), filepath.Base(f.messages))
	rep, err := benchreport.Run(cases, benchreport.Options{
		Count:     f.count,
		Benchtime: f.benchtime,
		Progress:  e.stderr,
	})
	if err != nil {
		return fmt.Errorf("bench: %s", trimProto(err))
	}
	if f.svg != "" {
		var svg bytes.Buffer
		if err := chart.WriteSVG(&svg, rep); err != nil {
			return fmt.Errorf("drawing the chart: %w", err)
		}
		if err := os.WriteFile(f.svg, svg.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the chart: %w", err)
		}
	}
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return benchreport.WriteText(e.stdout, rep, benchreport.TextOptions{DefaultBenchtime: "500ms"})
}

// readJSONLines parses data, a file of JSON lines, as messages of type mt.
func readJSONLines(name string, data []byte, mt protoreflect.MessageType, sc *schema) ([]proto.Message, error) {
	md := mt.Descriptor()
	var msgs []proto.Message
	lines := bufio.NewScanner(bytes.NewReader(data))
	lines.Buffer(nil, len(data)+1)
	for line := 1; lines.Scan(); line++ {
		text := bytes.TrimSpace(lines.Bytes())
		if len(text) == 0 {
			continue
		}
		m := mt.New().Interface()
		if err := (protojson.UnmarshalOptions{Resolver: sc.types}).Unmarshal(text, m); err != nil {
			return nil, fmt.Errorf("%s:%d: parsing %s from JSON: %s", name, line, md.FullName(), trimProto(err))
		}
		msgs = append(msgs, m)
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return msgs, nil
}

// readDelimited parses data, length-delimited binary messages, as messages
// of type mt.
func readDelimited(name string, data []byte, mt protoreflect.MessageType, sc *schema) ([]proto.Message, error) {
	md := mt.Descriptor()
	var msgs []proto.Message
	for off := 0; off < len(data); {
		n, k := protowire.ConsumeVarint(data[off:])
		if k < 0 {
			return nil, fmt.Errorf("%s: message %d at byte %d: the length prefix is cut off or malformed (is this a file of length-delimited messages? name a file of JSON lines .jsonl)", name, len(msgs)+1, off)
		}
		if n > uint64(len(data)-off-k) {
			return nil, fmt.Errorf("%s: message %d at byte %d: its length prefix says %d bytes, but %d remain (is this a file of length-delimited messages? name a file of JSON lines .jsonl)", name, len(msgs)+1, off, n, len(data)-off-k)
		}
		body := data[off+k : off+k+int(n)]
		m := mt.New().Interface()
		if err := (proto.UnmarshalOptions{Resolver: sc.types}).Unmarshal(body, m); err != nil {
			return nil, fmt.Errorf("%s: message %d at byte %d: decoding %s: %s", name, len(msgs)+1, off, md.FullName(), trimProto(err))
		}
		msgs = append(msgs, m)
		off += k + int(n)
	}
	return msgs, nil
}
