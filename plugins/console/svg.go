package console

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// The waterfall's bar and the sparkline's sizes, in SVG user units.
const (
	barWidth    = 240
	barHeight   = 14
	sparkWidth  = 300
	sparkHeight = 28
)

// bar draws one waterfall bar: the call's start and length in proportion
// to the run's duration. It is decoration (aria-hidden): the row's cells
// say the same in text.
func bar(at, dur, total time.Duration) template.HTML {
	if total <= 0 {
		total = 1
	}
	x := float64(at) / float64(total) * barWidth
	w := float64(dur) / float64(total) * barWidth
	x = min(max(x, 0), barWidth-1)
	w = min(max(w, 1), barWidth-x)
	return template.HTML(fmt.Sprintf(`<svg class="bar" width="%d" height="%d" viewBox="0 0 %d %d" aria-hidden="true" focusable="false"><rect class="track" x="0" y="0" width="%d" height="%d"/><rect class="fill" x="%.1f" y="2" width="%.1f" height="%d"/></svg>`,
		barWidth, barHeight, barWidth, barHeight, barWidth, barHeight, x, w, barHeight-4))
}

// spark draws a hook's calls (and blocks) per bucket over the window as
// two polylines, labelled for screen readers with the totals.
func spark(c chart) template.HTML {
	var peak uint32 = 1
	for _, v := range c.Points {
		peak = max(peak, v)
	}
	line := func(pts []uint32) string {
		var b strings.Builder
		step := float64(sparkWidth) / float64(max(len(pts)-1, 1))
		for i, v := range pts {
			y := float64(sparkHeight-2) - float64(v)/float64(peak)*float64(sparkHeight-4)
			fmt.Fprintf(&b, "%.1f,%.1f ", float64(i)*step, y)
		}
		return strings.TrimSpace(b.String())
	}
	label := fmt.Sprintf("%d calls and %d blocked in the window, at most %d in one bucket", c.Calls, c.Blocked, peak)
	return template.HTML(fmt.Sprintf(`<svg class="spark" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s"><polyline class="calls" points="%s"/><polyline class="blocked" points="%s"/></svg>`,
		sparkWidth, sparkHeight, sparkWidth, sparkHeight, template.HTMLEscapeString(label), line(c.Points), line(c.BlockPoints)))
}
