package benchreport

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dustin/go-humanize"
	"github.com/klauspost/cpuid/v2"
)

// The JSON report. Field names and order are stable, so that reports from
// different runs can be compared by program.
type (
	// Report is a whole run: the machine, the settings, and the results
	// per workload.
	Report struct {
		Env       Env              `json:"env"`
		Benchtime string           `json:"benchtime"`
		Count     int              `json:"count"`
		Workloads []WorkloadResult `json:"workloads"`
	}
	// Env is the machine, the Go toolchain and the module versions.
	Env struct {
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
	// WorkloadResult is one workload's results, one per contestant, in
	// the order they ran.
	WorkloadResult struct {
		Name        string   `json:"name"`
		Family      string   `json:"family,omitempty"` // "writer" for the writer family
		Description string   `json:"description"`
		Size        int      `json:"size_bytes"`
		Seconds     float64  `json:"seconds"`
		Results     []Result `json:"results"`
	}
	// Result is one contestant's median round on a workload, its paired
	// ratios to the family's baselines (0 where the baseline is absent),
	// and every round's time.
	Result struct {
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
		MovesPerMsg      *float64 `json:"moves_per_msg,omitempty"`
		MovedBytesPerMsg float64  `json:"moved_bytes_per_msg,omitempty"`
		// The unmarshal family's ratios.
		VsUnmarshalGenerated float64 `json:"vs_unmarshal_generated,omitempty"`
		VsUnmarshalDynamicpb float64 `json:"vs_unmarshal_dynamicpb,omitempty"`
		// Decoders whose messages can be held together: the bytes of
		// heap that what one operation decodes (every message of the
		// workload once) keeps alive (see Case.HeldBytes).
		HeldBytesPerOp *float64 `json:"held_bytes_per_op,omitempty"`
		// Wrong is the verification failure of a contestant that was
		// timed all the same (Contestant.Tolerate); "" for one whose
		// output is right.
		Wrong  string    `json:"wrong,omitempty"`
		Rounds []float64 `json:"rounds_ns_per_op"`
	}
)

// Ratio returns r's paired ratio to the baseline contestant named
// baseline, one of the Base names, or 0 if it has none.
func (r *Result) Ratio(baseline string) float64 {
	for _, family := range Families {
		for _, col := range familyColumns(family) {
			if col.baseline == baseline {
				return *col.field(r)
			}
		}
	}
	return 0
}

// Baselines returns the baselines of a family's ratio columns, in table
// order.
func Baselines(family string) []string {
	var out []string
	for _, col := range familyColumns(family) {
		out = append(out, col.baseline)
	}
	return out
}

// column is a ratio column.
type column struct {
	baseline string
	header   string
	field    func(*Result) *float64
}

// familyColumns returns the ratio columns of a family.
func familyColumns(family string) []column {
	switch family {
	case FamilyUnmarshal:
		return []column{
			{BaseUnmarshalGenerated, "vs " + BaseUnmarshalGenerated, func(r *Result) *float64 { return &r.VsUnmarshalGenerated }},
			{BaseUnmarshalDynamicpb, "vs " + BaseUnmarshalDynamicpb, func(r *Result) *float64 { return &r.VsUnmarshalDynamicpb }},
		}
	case FamilyWriter:
		return []column{
			{BaseHandwritten, "vs " + BaseHandwritten, func(r *Result) *float64 { return &r.VsHandwritten }},
			{BaseEasyproto, "vs " + BaseEasyproto, func(r *Result) *float64 { return &r.VsEasyproto }},
			{BaseDynamicpb, "vs " + BaseDynamicpb, func(r *Result) *float64 { return &r.VsDynamicpbMarshal }},
		}
	}
	return []column{
		{BaseGenerated, "vs " + BaseGenerated, func(r *Result) *float64 { return &r.VsGenerated }},
		{BaseDynamic, "vs " + BaseDynamic, func(r *Result) *float64 { return &r.VsDynamic }},
		{BaseFloor, "vs floor", func(r *Result) *float64 { return &r.VsFloor }},
	}
}

// notableFeatures are the CPU features worth naming in the header.
var notableFeatures = []cpuid.FeatureID{
	cpuid.SSE42, cpuid.POPCNT, cpuid.AVX, cpuid.AVX2, cpuid.AVX512F, cpuid.AVX512BW,
	cpuid.AVX512VL, cpuid.BMI1, cpuid.BMI2, cpuid.ASIMD, cpuid.CRC32,
}

const (
	protolayoutModule = "github.com/protolayout/protolayout"
	protobufModule    = "google.golang.org/protobuf"
)

// Environment describes this machine and program: the CPU, its cores and
// notable instruction set extensions, the Go version and platform, and the
// versions of the protolayout and protobuf modules linked in ("(devel)"
// when built from a work tree).
func Environment() Env {
	e := Env{
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

// TextOptions are WriteText's settings.
type TextOptions struct {
	// DefaultBenchtime, if it equals the report's benchtime, marks it in
	// the header as the default, with a hint to change it.
	DefaultBenchtime string
	// Notes follow the ratios line in the header; nil gives
	// DefaultNotes, an empty non-nil slice none.
	Notes []Note
}

// Note is a line of the header, "label:" and text; a text of several
// lines continues them under the first.
type Note struct {
	Label string
	Text  string
}

// DefaultNotes are the header's notes when TextOptions.Notes is nil: what
// the floor contestants measure.
var DefaultNotes = []Note{{Label: "floor", Text: "floor/* only read every populated field of the messages through protoreflect;\n" +
	"they write nothing, and their MB/s counts the encoded size"}}

// WriteText writes the header (machine, settings, notes) and one aligned
// table per workload: ns/op, MB/s, B/op and allocs/op of each contestant
// and its ratios to the family's baselines that the workload has, the
// Writers' moves where any contestant reports them, and the memory a
// decoded message holds where any decoder reports it.
func WriteText(out io.Writer, rep *Report, o TextOptions) error {
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
	if o.DefaultBenchtime != "" && benchtime == o.DefaultBenchtime {
		benchtime += " (default, -benchtime to change)"
	}
	fmt.Fprintf(hw, "benchtime:\t%s per contestant, %s\n", benchtime, rounds)
	if rep.Count > 1 {
		fmt.Fprintf(hw, "ratios:\tmedian over rounds of ns/op divided by the baseline's ns/op in the same round;\n")
		fmt.Fprintf(hw, "\tbelow 1.00x is faster; floor = %s\n", BaseFloor)
	} else {
		fmt.Fprintf(hw, "ratios:\tns/op divided by the baseline's ns/op; below 1.00x is faster; floor = %s\n", BaseFloor)
	}
	notes := o.Notes
	if notes == nil {
		notes = DefaultNotes
	}
	for _, n := range notes {
		for i, line := range strings.Split(n.Text, "\n") {
			label := ""
			if i == 0 {
				label = n.Label + ":"
			}
			fmt.Fprintf(hw, "%s\t%s\n", label, line)
		}
	}
	if err := hw.Flush(); err != nil {
		return err
	}
	for _, w := range rep.Workloads {
		if err := writeTable(out, w); err != nil {
			return err
		}
	}
	return nil
}

// writeTable writes one workload's title and table.
func writeTable(out io.Writer, w WorkloadResult) error {
	fmt.Fprintf(out, "\n%s: %s, %s (%s bytes), measured in %.1fs\n",
		w.Name, w.Description, humanize.Bytes(uint64(w.Size)), humanize.Comma(int64(w.Size)), w.Seconds)
	width := len("contestant")
	var cols []column
	moves, held := false, false
	var wrong []string
	for _, r := range w.Results {
		width = max(width, len(r.Contestant))
		if r.Wrong != "" {
			width = max(width, len(r.Contestant)+len(wrongMark))
			wrong = append(wrong, fmt.Sprintf("  %s%s wrong output, timed all the same: %s\n", r.Contestant, wrongMark, r.Wrong))
		}
		moves = moves || r.MovesPerMsg != nil
		held = held || r.HeldBytesPerOp != nil
	}
	for _, col := range familyColumns(w.Family) {
		for _, r := range w.Results {
			if r.Contestant == col.baseline {
				cols = append(cols, col)
				break
			}
		}
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tns/op\tMB/s\tB/op\tallocs/op\t", width, "contestant")
	for _, col := range cols {
		fmt.Fprintf(tw, "%s\t", col.header)
	}
	if moves {
		fmt.Fprintf(tw, "moves/msg\tmoved B/msg\t")
	}
	if held {
		fmt.Fprintf(tw, "held B/op\t")
	}
	fmt.Fprintln(tw)
	for _, r := range w.Results {
		name := r.Contestant
		if r.Wrong != "" {
			name += wrongMark
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%.1f\t%s\t%s\t", width, name,
			formatNs(r.NsPerOp), r.MBPerS, humanize.Comma(r.BytesPerOp), humanize.Comma(r.AllocsPerOp))
		for _, col := range cols {
			fmt.Fprintf(tw, "%s\t", FormatRatio(*col.field(&r)))
		}
		if moves {
			mv, moved := "-", "-"
			if r.MovesPerMsg != nil {
				mv, moved = humanize.Comma(int64(*r.MovesPerMsg)), humanize.Comma(int64(r.MovedBytesPerMsg))
			}
			fmt.Fprintf(tw, "%s\t%s\t", mv, moved)
		}
		if held {
			h := "-"
			if r.HeldBytesPerOp != nil {
				h = humanize.Comma(int64(math.Round(*r.HeldBytesPerOp)))
			}
			fmt.Fprintf(tw, "%s\t", h)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range wrong {
		if _, err := io.WriteString(out, l); err != nil {
			return err
		}
	}
	return nil
}

// wrongMark follows the name of a contestant whose output is wrong, and
// starts the line under the table that says how.
const wrongMark = " (!)"

// formatNs prints a time per operation with digit grouping, and a decimal
// only where it matters.
func formatNs(ns float64) string {
	if ns < 100 {
		return strconv.FormatFloat(ns, 'f', 1, 64)
	}
	return humanize.Comma(int64(ns + 0.5))
}

// FormatRatio prints a ratio as the tables do: two decimals and an x, a
// whole number with digit grouping from 100 up, and "-" for 0 (no ratio).
func FormatRatio(r float64) string {
	switch {
	case r == 0:
		return "-"
	case r >= 100:
		return humanize.Comma(int64(r+0.5)) + "x"
	}
	return fmt.Sprintf("%.2fx", r)
}
