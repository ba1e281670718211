package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/protolayout/protolayout/internal/benchreport"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// defaultBenchtime is the time of each contestant's round by default,
// trimmed from go test's 1s so that the whole report (62 cases) takes
// about a minute on two cores.
const defaultBenchtime = "500ms"

// config holds the command-line settings.
type config struct {
	count     int
	workload  string
	json      bool
	benchtime string
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
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./benchmarks [flags]\n\n"+
			"Encodes each workload with proto.Marshal and protolayout and prints a table per workload.\n\n")
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
	all, err := unverifiedCases(filter)
	if err != nil {
		return fmt.Errorf("%w: %v", benchreport.ErrVerify, err)
	}
	if len(all) == 0 {
		return fmt.Errorf("no workload matches -workload %q", cfg.workload)
	}
	rep, err := benchreport.Run(all, benchreport.Options{
		Count:     cfg.count,
		Benchtime: cfg.benchtime,
		Progress:  stderr,
		Prefix:    "benchmarks: ",
	})
	if err != nil {
		return err
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return benchreport.WriteText(stdout, rep, benchreport.TextOptions{DefaultBenchtime: defaultBenchtime, Notes: notes})
}
