// Package chart draws a benchmark report's ratios as a bar chart in SVG,
// with gonum's plot: one panel per family of workloads (the marshal
// family, the writer family, then the unmarshal family), and in each a group of horizontal bars
// per workload, one bar per contestant, its time relative to the panel's
// baseline on a log scale, from a reference line at 1.0 (left of it is
// faster). The baseline of a panel is the first of its family's baselines
// (benchreport.Baselines) that ran in it: proto/generated for the marshal
// family, proto/dynamicpb where only dynamic contestants ran, handwritten
// for the writer family, unmarshal/generated for the unmarshal family.
//
// It is a package of its own so that a program that prints the report
// without drawing it does not link gonum's plot and fonts.
package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgsvg" // the svg format of draw.NewFormattedCanvas

	"github.com/protolayout/protolayout/internal/benchreport"
)

// Sizes of the chart, in points.
const (
	width      = 9 * vg.Inch
	barHeight  = 9   // per bar
	groupGap   = 14  // between workloads
	panelExtra = 110 // title, axis and margins of a panel
)

// palette colours the contestants, in the order they first appear in a
// panel (Tableau's ten, then grey shades).
var palette = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x76b7b2), rgb(0x59a14f),
	rgb(0xedc948), rgb(0xb07aa1), rgb(0xff9da7), rgb(0x9c755f), rgb(0xbab0ac),
	rgb(0x555555), rgb(0x888888),
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// panel is the part of the chart of one family.
type panel struct {
	family    string
	baseline  string
	workloads []benchreport.WorkloadResult
	names     []string // contestants other than the baseline, in order of first appearance
}

// bars returns the number of bar slots the panel needs.
func (p *panel) bars() int {
	n := 0
	for _, w := range p.workloads {
		for _, r := range w.Results {
			if r.Contestant != p.baseline && r.Ratio(p.baseline) > 0 {
				n++
			}
		}
	}
	return n
}

// height returns the panel's height.
func (p *panel) height() vg.Length {
	return vg.Length(p.bars()*barHeight+len(p.workloads)*groupGap) + panelExtra
}

// panels splits the report by family, in the order of
// benchreport.Families.
func panels(rep *benchreport.Report) []*panel {
	var out []*panel
	for _, family := range benchreport.Families {
		p := &panel{family: family}
		for _, w := range rep.Workloads {
			if w.Family == family {
				p.workloads = append(p.workloads, w)
			}
		}
	find:
		for _, b := range benchreport.Baselines(family) {
			for _, w := range p.workloads {
				for _, r := range w.Results {
					if r.Contestant == b {
						p.baseline = b
						break find
					}
				}
			}
		}
		if p.baseline == "" {
			continue
		}
		for _, w := range p.workloads {
			for _, r := range w.Results {
				if r.Contestant != p.baseline && !slices.Contains(p.names, r.Contestant) {
					p.names = append(p.names, r.Contestant)
				}
			}
		}
		if p.bars() > 0 {
			out = append(out, p)
		}
	}
	return out
}

// WriteSVG draws the report's ratios and writes the chart to w as SVG. It
// fails if no workload has a ratio to draw.
func WriteSVG(w io.Writer, rep *benchreport.Report) error {
	return write(w, rep, "svg")
}

// write draws the chart in one of the formats of draw.NewFormattedCanvas.
func write(w io.Writer, rep *benchreport.Report, format string) error {
	ps := panels(rep)
	if len(ps) == 0 {
		return errors.New("chart: no ratios to draw")
	}
	var total vg.Length
	for _, p := range ps {
		total += p.height()
	}
	c, err := draw.NewFormattedCanvas(width, total, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	top := vg.Length(0)
	for i, p := range ps {
		h := p.height()
		p.plot(rep, i == 0).Draw(draw.Crop(dc, 0, 0, total-top-h, -top))
		top += h
	}
	_, err = c.WriteTo(w)
	return err
}

// plot builds the panel's plot; the first panel's title names the machine.
func (p *panel) plot(rep *benchreport.Report, first bool) *plot.Plot {
	pl := plot.New()
	family := "encoding message objects"
	switch p.family {
	case benchreport.FamilyWriter:
		family = "encoding plain values (the writer family)"
	case benchreport.FamilyUnmarshal:
		family = "decoding into new messages (the unmarshal family)"
	}
	pl.Title.Text = fmt.Sprintf("Time relative to %s, %s", p.baseline, family)
	if first {
		e := rep.Env
		rounds := "1 round"
		if rep.Count > 1 {
			rounds = fmt.Sprintf("median of %d paired rounds", rep.Count)
		}
		pl.Title.Text = fmt.Sprintf("protolayout benchmark report: %s, %s %s/%s, %s of %s\n%s",
			e.CPU, e.GoVersion, e.GOOS, e.GOARCH, rounds, rep.Benchtime, pl.Title.Text)
	}
	pl.Title.TextStyle.Font.Size = 11
	pl.X.Label.Text = fmt.Sprintf("time per operation / %s's (log scale; left of 1 is faster)", p.baseline)
	pl.X.Scale = plot.LogScale{}
	pl.X.Tick.Marker = ratioTicks{}
	pl.Y.Label.Text = "workload"
	pl.Y.Tick.Length = 0
	pl.Y.Tick.Label.Font.Size = 10

	// Bars from the top: the first workload's first contestant highest.
	b := &bars{baseline: p.baseline}
	y := 0.0
	var ticks []plot.Tick
	for _, w := range p.workloads {
		start := y
		for _, r := range w.Results {
			ratio := r.Ratio(p.baseline)
			if r.Contestant == p.baseline || ratio <= 0 {
				continue
			}
			b.items = append(b.items, bar{y: y, ratio: ratio, color: palette[slices.Index(p.names, r.Contestant)%len(palette)]})
			y -= barHeight
		}
		ticks = append(ticks, plot.Tick{Value: (start + y + barHeight) / 2, Label: w.Name})
		y -= groupGap
	}
	b.ymin, b.ymax = y+groupGap-barHeight/2, barHeight/2
	pl.Y.Tick.Marker = plot.ConstantTicks(ticks)
	pl.Add(b)
	for i, name := range p.names {
		pl.Legend.Add(name, swatch{palette[i%len(palette)]})
	}
	pl.Legend.Top = p.family == benchreport.FamilyMarshal
	pl.Legend.TextStyle.Font.Size = 9
	pl.Legend.ThumbnailWidth = 12
	return pl
}

// bar is one contestant's bar, centred at y (in points of the panel's
// Y data range, which counts bar slots).
type bar struct {
	y, ratio float64
	color    color.Color
}

// bars is a plot.Plotter of horizontal bars from 1.0 to each ratio, with
// the ratio printed at the bar's end, and the reference line at 1.0.
type bars struct {
	baseline   string
	items      []bar
	ymin, ymax float64
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	labelStyle := text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, 7),
		Handler: plot.DefaultTextHandler,
		YAlign:  draw.YCenter,
	}
	one := trX(1)
	for _, it := range b.items {
		x := trX(it.ratio)
		y0, y1 := trY(it.y-barHeight*0.42), trY(it.y+barHeight*0.42)
		c.FillPolygon(it.color, c.ClipPolygonXY([]vg.Point{{X: one, Y: y0}, {X: x, Y: y0}, {X: x, Y: y1}, {X: one, Y: y1}}))
		sty := labelStyle
		pt := vg.Point{X: x + 2, Y: trY(it.y)}
		if it.ratio < 1 {
			sty.XAlign = draw.XRight
			pt.X = x - 2
		}
		c.FillText(sty, pt, label(it.ratio))
	}
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}},
		one, c.Min.Y, one, c.Max.Y)
}

// DataRange implements plot.DataRanger: the ratios and 1.0, with room on
// each side for the labels (a fifth of a decade and more), and every bar
// slot.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = 1, 1
	for _, it := range b.items {
		xmin, xmax = math.Min(xmin, it.ratio), math.Max(xmax, it.ratio)
	}
	return xmin / 2.5, xmax * 2.5, b.ymin, b.ymax
}

// label prints a ratio as the tables do, but with two significant digits
// below 0.01, where the tables print 0.00x.
func label(r float64) string {
	if r < 0.01 {
		return strconv.FormatFloat(r, 'g', 2, 64) + "x"
	}
	return benchreport.FormatRatio(r)
}

// swatch is a legend entry's coloured square.
type swatch struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.color, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// ratioTicks labels the powers of ten of a log axis as ratios (0.01x, 1x,
// 100x) and marks the steps between them.
type ratioTicks struct{}

// Ticks implements plot.Ticker.
func (ratioTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(min, max) {
		if t.Label != "" {
			t.Label = strings.TrimSuffix(t.Label, ".0") + "x"
		}
		out = append(out, t)
	}
	return out
}
