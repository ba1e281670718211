package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/protolayout/protolayout/internal/benchreport"
	"github.com/protolayout/protolayout/internal/benchreport/chart"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// defaultBenchtime is the time of each contestant's round by default,
// trimmed from go test's 1s so that the whole report (114 cases) takes
// a little over a minute on two cores.
const defaultBenchtime = "500ms"

// config holds the command-line settings.
type config struct {
	count     int
	workload  string
	json      bool
	benchtime string
	svg       string // file to draw the ratios into, or ""
	from      string // a -json report to read instead of measuring, or ""
}

// run is the program: it parses args, verifies and times the contestants,
// and writes the report to stdout and progress to stderr. It returns the
// exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchmarks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.IntVar(&cfg.count, "count", 1, "rounds of each contestant; with more than one, the median round is reported, and ratios are medians of the ratios within each round")
	fs.StringVar(&cfg.workload, "workload", "", "run only the workloads whose name matches this regular expression")
	fs.BoolVar(&cfg.json, "json", false, "write the results as JSON instead of tables")
	fs.StringVar(&cfg.benchtime, "benchtime", defaultBenchtime, "time (or Nx iterations) of each round, as in go test -benchtime")
	fs.StringVar(&cfg.svg, "svg", "", "also draw the ratios as a bar chart into this SVG `file`")
	fs.StringVar(&cfg.from, "from", "", "read the results from this `file`, written by -json, instead of measuring (-count and -benchtime are then ignored)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./benchmarks [flags]\n\n"+
			"Encodes each workload with proto.Marshal and protolayout, decodes each message workload's\n"+
			"bytes with proto.Unmarshal into each message type, and prints a table per workload.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "benchmarks: unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	if err := report(cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "benchmarks: %v\n", err)
		return 1
	}
	return 0
}

// notes are the header's notes on this program's workloads.
var notes = []benchreport.Note{
	{Label: "writer", Text: fmt.Sprintf("the writer workload encodes plain values; its ratios are to %s, %s and %s", baseHandwritten, baseEasyproto, baseDynamicpb)},
	{Label: "floor", Text: "floor/* only read every populated field of the dynamic twin through protoreflect;\n" +
		"they write nothing, and their MB/s counts the encoded size"},
	{Label: "decode", Text: "the *-decode workloads proto.Unmarshal the reference bytes into a new message of each type;\n" +
		fmt.Sprintf("their ratios are to %s and %s; held B/op is the live heap a decoded\n", benchreport.BaseUnmarshalGenerated, benchreport.BaseUnmarshalDynamicpb) +
		fmt.Sprintf("message keeps (after runtime.GC, %d decoded messages held at once)", benchreport.DefaultHeld)},
}

func report(cfg config, stdout, stderr io.Writer) error {
	if cfg.count < 1 {
		return fmt.Errorf("-count must be at least 1, not %d", cfg.count)
	}
	var filter *regexp.Regexp
	if cfg.workload != "" {
		var err error
		if filter, err = regexp.Compile(cfg.workload); err != nil {
			return fmt.Errorf("-workload: %v", err)
		}
	}
	var rep *benchreport.Report
	var err error
	if cfg.from != "" {
		rep, err = readReport(cfg.from, filter)
	} else {
		rep, err = measure(cfg, filter, stderr)
	}
	if err != nil {
		return err
	}
	if len(rep.Workloads) == 0 {
		return fmt.Errorf("no workload matches -workload %q", cfg.workload)
	}
	if cfg.svg != "" {
		if err := writeSVG(cfg.svg, rep); err != nil {
			return err
		}
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return benchreport.WriteText(stdout, rep, benchreport.TextOptions{DefaultBenchtime: defaultBenchtime, Notes: notes})
}

// measure verifies and times the workloads that filter matches (all when
// it is nil).
func measure(cfg config, filter *regexp.Regexp, stderr io.Writer) (*benchreport.Report, error) {
	all, err := unverifiedCases(filter)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", benchreport.ErrVerify, err)
	}
	if len(all) == 0 {
		return &benchreport.Report{}, nil
	}
	return benchreport.Run(all, benchreport.Options{
		Count:     cfg.count,
		Benchtime: cfg.benchtime,
		Progress:  stderr,
		Prefix:    "benchmarks: ",
	})
}

// readReport reads a report written by -json, keeping the workloads that
// filter matches (all when it is nil).
func readReport(path string, filter *regexp.Regexp) (*benchreport.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-from: %v", err)
	}
	rep := new(benchreport.Report)
	if err := json.Unmarshal(b, rep); err != nil {
		return nil, fmt.Errorf("-from %s: %v", path, err)
	}
	if filter != nil {
		rep.Workloads = slices.DeleteFunc(rep.Workloads, func(w benchreport.WorkloadResult) bool { return !filter.MatchString(w.Name) })
	}
	return rep, nil
}

// writeSVG draws the report's ratios into the file at path.
func writeSVG(path string, rep *benchreport.Report) error {
	var buf bytes.Buffer
	if err := chart.WriteSVG(&buf, rep); err != nil {
		return fmt.Errorf("-svg: %v", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-svg: %v", err)
	}
	return nil
}
