package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/klauspost/cpuid/v2"
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

// errVerify marks a contestant whose output is wrong.
var errVerify = errors.New("verification failed")

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
	restore, err := setBenchtime(cfg.benchtime)
	if err != nil {
		return err
	}
	defer restore()

	all, err := cases(filter)
	if err != nil {
		return fmt.Errorf("%w: %v", errVerify, err)
	}
	if len(all) == 0 {
		return fmt.Errorf("no workload matches -workload %q", cfg.workload)
	}

	rep := &jsonReport{Env: environment(), Benchtime: cfg.benchtime, Count: cfg.count}
	for len(all) > 0 {
		w := all[0].workload
		n := 1
		for n < len(all) && all[n].workload == w {
			n++
		}
		res, err := measure(w, all[:n], cfg.count, stderr)
		if err != nil {
			return err
		}
		rep.Workloads = append(rep.Workloads, res)
		all = all[n:]
	}

	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeText(stdout, rep)
}

// setBenchtime sets the benchmark time testing.Benchmark uses, which it
// reads from the -test.benchtime flag, and returns a func that puts the
// previous value back.
func setBenchtime(v string) (restore func(), err error) {
	testing.Init() // registers -test.benchtime outside go test; no-op inside
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return nil, errors.New("testing did not register -test.benchtime")
	}
	old := f.Value.String()
	if err := f.Value.Set(v); err != nil {
		return nil, fmt.Errorf("-benchtime: %v", err)
	}
	return func() { _ = f.Value.Set(old) }, nil
}

// measure times the cases of one workload, count rounds of each with the
// contestants interleaved, and keeps each contestant's median round.
func measure(w *workload, cs []*benchCase, count int, stderr io.Writer) (jsonWorkload, error) {
	rounds := make([][]testing.BenchmarkResult, len(cs))
	start := time.Now()
	for r := range count {
		if count > 1 {
			fmt.Fprintf(stderr, "benchmarks: %s (%s): round %d/%d of %d contestants\n", w.name, humanize.Bytes(uint64(len(w.ref))), r+1, count, len(cs))
		} else {
			fmt.Fprintf(stderr, "benchmarks: %s (%s): %d contestants\n", w.name, humanize.Bytes(uint64(len(w.ref))), len(cs))
		}
		for i, c := range cs {
			res := testing.Benchmark(c.body)
			if res.N == 0 {
				return jsonWorkload{}, fmt.Errorf("%s: the benchmark failed", c.name())
			}
			rounds[i] = append(rounds[i], res)
		}
	}
	out := jsonWorkload{
		Name:        w.name,
		Family:      w.family,
		Description: w.description,
		Size:        len(w.ref),
		Seconds:     time.Since(start).Seconds(),
	}
	for i, c := range cs {
		out.Results = append(out.Results, summarize(c.contestant.name, rounds[i]))
	}
	index := func(name string) int {
		return slices.IndexFunc(cs, func(c *benchCase) bool { return c.contestant.name == name })
	}
	vs := func(i, base int) float64 {
		if base < 0 {
			return 0
		}
		return pairedRatio(rounds[i], rounds[base])
	}
	gen, dyn, floor := index(baseGenerated), index(baseDynamic), index(baseFloor)
	hand, easy, dynpb := index(baseHandwritten), index(baseEasyproto), index(baseDynamicpb)
	for i := range out.Results {
		r := &out.Results[i]
		if w.family == familyWriter {
			r.VsHandwritten = vs(i, hand)
			r.VsEasyproto = vs(i, easy)
			r.VsDynamicpbMarshal = vs(i, dynpb)
			continue
		}
		r.VsGenerated = vs(i, gen)
		r.VsDynamic = vs(i, dyn)
		r.VsFloor = vs(i, floor)
	}
	return out, nil
}

// pairedRatio is the median, over rounds, of a's time per operation
// divided by base's in the same round (the mean of the middle two for an
// even count). A round runs every contestant of a workload back to back,
// so each ratio compares runs made under the same load of the machine;
// the median of those ratios moves less with a shared machine's load than
// the ratio of two medians taken from different rounds.
func pairedRatio(a, base []testing.BenchmarkResult) float64 {
	rs := make([]float64, 0, len(a))
	for r := range min(len(a), len(base)) {
		if b := nsPerOp(base[r]); b > 0 {
			rs = append(rs, nsPerOp(a[r])/b)
		}
	}
	if len(rs) == 0 {
		return 0
	}
	slices.Sort(rs)
	m := len(rs) / 2
	if len(rs)%2 == 0 {
		return (rs[m-1] + rs[m]) / 2
	}
	return rs[m]
}

// nsPerOp is a result's time per iteration, unrounded.
func nsPerOp(r testing.BenchmarkResult) float64 {
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

// summarize reports the median round of one contestant (the lower median
// for an even count).
func summarize(name string, rounds []testing.BenchmarkResult) jsonResult {
	sorted := slices.Clone(rounds)
	slices.SortStableFunc(sorted, func(a, b testing.BenchmarkResult) int {
		x, y := nsPerOp(a), nsPerOp(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	med := sorted[(len(sorted)-1)/2]
	out := jsonResult{
		Contestant:  name,
		Iterations:  med.N,
		NsPerOp:     nsPerOp(med),
		BytesPerOp:  med.AllocedBytesPerOp(),
		AllocsPerOp: med.AllocsPerOp(),
	}
	if out.NsPerOp > 0 {
		out.MBPerS = float64(med.Bytes) * 1e3 / out.NsPerOp
	}
	if moves, ok := med.Extra["moves/msg"]; ok {
		out.MovesPerMsg = &moves
		out.MovedBytesPerMsg = med.Extra["moved-B/msg"]
	}
	for _, r := range rounds {
		out.Rounds = append(out.Rounds, nsPerOp(r))
	}
	return out
}

// The JSON report. Field names and order are stable, so that reports from
// different runs can be compared by program.
type (
	jsonReport struct {
		Env       jsonEnv        `json:"env"`
		Benchtime string         `json:"benchtime"`
		Count     int            `json:"count"`
		Workloads []jsonWorkload `json:"workloads"`
	}
	jsonEnv struct {
		CPU           string   `json:"cpu"`
		PhysicalCores int      `json:"physical_cores"`
		LogicalCores  int      `json:"logical_cores"`
		Features      []string `json:"features"`
		GoVersion     string   `json:"go_version"`
		GOOS          string   `json:"goos"`
		GOARCH        string   `json:"goarch"`
		GOMAXPROCS    int      `json:"gomaxprocs"`
		Protobuf      string   `json:"protobuf_version"`
		Protolayout   string   `json:"protolayout_version"`
	}
	jsonWorkload struct {
		Name        string       `json:"name"`
		Family      string       `json:"family,omitempty"` // "writer" for the writer family
		Description string       `json:"description"`
		Size        int          `json:"size_bytes"`
		Seconds     float64      `json:"seconds"`
		Results     []jsonResult `json:"results"`
	}
	jsonResult struct {
		Contestant  string  `json:"contestant"`
		Iterations  int     `json:"iterations"`
		NsPerOp     float64 `json:"ns_per_op"`
		MBPerS      float64 `json:"mb_per_s"`
		BytesPerOp  int64   `json:"bytes_per_op"`
		AllocsPerOp int64   `json:"allocs_per_op"`
		// The marshal family's ratios (0 on the writer family).
		VsGenerated float64 `json:"vs_proto_generated"`
		VsDynamic   float64 `json:"vs_proto_dynamic"`
		VsFloor     float64 `json:"vs_floor"`
		// The writer family's ratios.
		VsHandwritten      float64 `json:"vs_handwritten,omitempty"`
		VsEasyproto        float64 `json:"vs_easyproto,omitempty"`
		VsDynamicpbMarshal float64 `json:"vs_dynamicpb_marshal,omitempty"`
		// Writer contestants: length moves per message.
		MovesPerMsg      *float64  `json:"moves_per_msg,omitempty"`
		MovedBytesPerMsg float64   `json:"moved_bytes_per_msg,omitempty"`
		Rounds           []float64 `json:"rounds_ns_per_op"`
	}
)

// notableFeatures are the CPU features worth naming in the header.
var notableFeatures = []cpuid.FeatureID{
	cpuid.SSE42, cpuid.POPCNT, cpuid.AVX, cpuid.AVX2, cpuid.AVX512F, cpuid.AVX512BW,
	cpuid.AVX512VL, cpuid.BMI1, cpuid.BMI2, cpuid.ASIMD, cpuid.CRC32,
}

const (
	protolayoutModule = "github.com/protolayout/protolayout"
	protobufModule    = "google.golang.org/protobuf"
)

func environment() jsonEnv {
	e := jsonEnv{
		CPU:           strings.TrimSpace(cpuid.CPU.BrandName),
		PhysicalCores: cpuid.CPU.PhysicalCores,
		LogicalCores:  cpuid.CPU.LogicalCores,
		Features:      []string{},
		GoVersion:     runtime.Version(),
		GOOS:          runtime.GOOS,
		GOARCH:        runtime.GOARCH,
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		Protobuf:      "(devel)",
		Protolayout:   "(devel)",
	}
	if e.CPU == "" {
		e.CPU = "unknown CPU"
	}
	for _, f := range notableFeatures {
		if cpuid.CPU.Supports(f) {
			e.Features = append(e.Features, f.String())
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
		for _, m := range mods {
			if m.Replace != nil {
				m = m.Replace
			}
			if m.Version == "" {
				continue
			}
			switch m.Path {
			case protolayoutModule:
				e.Protolayout = m.Version
			case protobufModule:
				e.Protobuf = m.Version
			}
		}
	}
	return e
}

// writeText writes the header and one aligned table per workload.
func writeText(out io.Writer, rep *jsonReport) error {
	e := rep.Env
	features := strings.Join(e.Features, " ")
	if features == "" {
		features = "none of note"
	}
	rounds := "1 round"
	if rep.Count > 1 {
		rounds = fmt.Sprintf("median of %d rounds", rep.Count)
	}
	hw := tabwriter.NewWriter(out, 0, 0, 1, ' ', 0)
	fmt.Fprintf(hw, "cpu:\t%s, %d physical / %d logical cores\n", e.CPU, e.PhysicalCores, e.LogicalCores)
	fmt.Fprintf(hw, "features:\t%s\n", features)
	fmt.Fprintf(hw, "go:\t%s %s/%s, GOMAXPROCS=%d\n", e.GoVersion, e.GOOS, e.GOARCH, e.GOMAXPROCS)
	fmt.Fprintf(hw, "modules:\t%s %s, %s %s\n", protolayoutModule, e.Protolayout, protobufModule, e.Protobuf)
	benchtime := rep.Benchtime
	if benchtime == defaultBenchtime {
		benchtime += " (default, -benchtime to change)"
	}
	fmt.Fprintf(hw, "benchtime:\t%s per contestant, %s\n", benchtime, rounds)
	if rep.Count > 1 {
		fmt.Fprintf(hw, "ratios:\tmedian over rounds of ns/op divided by the baseline's ns/op in the same round;\n")
		fmt.Fprintf(hw, "\tbelow 1.00x is faster; floor = %s\n", baseFloor)
	} else {
		fmt.Fprintf(hw, "ratios:\tns/op divided by the baseline's ns/op; below 1.00x is faster; floor = %s\n", baseFloor)
	}
	fmt.Fprintf(hw, "writer:\tthe writer workload encodes plain values; its ratios are to %s, %s and %s\n", baseHandwritten, baseEasyproto, baseDynamicpb)
	fmt.Fprintf(hw, "floor:\tfloor/* only read every populated field of the dynamic twin through protoreflect;\n")
	fmt.Fprintf(hw, "\tthey write nothing, and their MB/s counts the encoded size\n")
	if err := hw.Flush(); err != nil {
		return err
	}

	for _, w := range rep.Workloads {
		fmt.Fprintf(out, "\n%s: %s, %s (%s bytes), measured in %.1fs\n",
			w.Name, w.Description, humanize.Bytes(uint64(w.Size)), humanize.Comma(int64(w.Size)), w.Seconds)
		width := len("contestant")
		for _, r := range w.Results {
			width = max(width, len(r.Contestant))
		}
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		if w.Family == familyWriter {
			fmt.Fprintf(tw, "%-*s\tns/op\tMB/s\tB/op\tallocs/op\tvs %s\tvs %s\tvs %s\tmoves/msg\tmoved B/msg\t\n",
				width, "contestant", baseHandwritten, baseEasyproto, baseDynamicpb)
		} else {
			fmt.Fprintf(tw, "%-*s\tns/op\tMB/s\tB/op\tallocs/op\tvs %s\tvs %s\tvs floor\t\n", width, "contestant", baseGenerated, baseDynamic)
		}
		for _, r := range w.Results {
			fmt.Fprintf(tw, "%-*s\t%s\t%.1f\t%s\t%s\t", width, r.Contestant,
				formatNs(r.NsPerOp), r.MBPerS, humanize.Comma(r.BytesPerOp), humanize.Comma(r.AllocsPerOp))
			if w.Family != familyWriter {
				fmt.Fprintf(tw, "%s\t%s\t%s\t\n", ratio(r.VsGenerated), ratio(r.VsDynamic), ratio(r.VsFloor))
				continue
			}
			moves, moved := "-", "-"
			if r.MovesPerMsg != nil {
				moves, moved = humanize.Comma(int64(*r.MovesPerMsg)), humanize.Comma(int64(r.MovedBytesPerMsg))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", ratio(r.VsHandwritten), ratio(r.VsEasyproto), ratio(r.VsDynamicpbMarshal), moves, moved)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// formatNs prints a time per operation with digit grouping, and a decimal
// only where it matters.
func formatNs(ns float64) string {
	if ns < 100 {
		return strconv.FormatFloat(ns, 'f', 1, 64)
	}
	return humanize.Comma(int64(ns + 0.5))
}

// ratio prints a ratio with two decimals, or as a whole number from 100 up.
func ratio(r float64) string {
	switch {
	case r == 0:
		return "-"
	case r >= 100:
		return humanize.Comma(int64(r+0.5)) + "x"
	}
	return fmt.Sprintf("%.2fx", r)
}
