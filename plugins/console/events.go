package console

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The live stream's timing: a comment every keepAlive keeps proxies from
// closing an idle stream; a write that takes longer than writeTimeout
// ends the stream of a viewer that stopped reading.
const (
	keepAlive    = 15 * time.Second
	writeTimeout = 10 * time.Second
)

// events serves the runs list's live stream (Server-Sent Events): an
// event "run" per new run that matches the list's filters, its id the
// run's ID and its data the list's row; an event "dropped" whose data
// counts the runs left out because the viewer read slower than runs
// finished (its buffer holds viewerBuffer runs). A stream that names the
// run its viewer saw last, as the Last-Event-ID header of a reconnecting
// browser or the "after" query parameter of a page's first stream,
// starts with the runs kept since; an event "missed" counts those no
// longer kept ("restart" when the run is of an earlier start).
func (p *Plugin) events(w http.ResponseWriter, r *http.Request) {
	f := filterOf(r)
	v := newViewer()
	after := r.Header.Get("Last-Event-ID")
	if after == "" {
		after = r.URL.Query().Get("after")
	}
	ok, missed := p.ring.subscribe(v, p.cfg.Viewers, after)
	if !ok {
		p.problem(w, http.StatusServiceUnavailable, "Too many viewers", "Too many live viewers: at most "+strconv.Itoa(p.cfg.Viewers)+".")
		return
	}
	defer p.ring.unsubscribe(v)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	hello := "retry: 2000\n: live\n\n"
	switch {
	case missed < 0:
		hello += "event: missed\ndata: restart\n\n"
	case missed > 0:
		hello += "event: missed\ndata: " + strconv.Itoa(missed) + "\n\n"
	}
	if !send([]byte(hello)) {
		return
	}
	v.wakeUp() // the replayed runs
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	var buf, row bytes.Buffer
	for {
		select {
		case <-r.Context().Done():
			return
		case <-p.stop:
			return
		case <-tick.C:
			if !send([]byte(": keep-alive\n\n")) {
				return
			}
			continue
		case <-v.wake:
		}
		runs, dropped := v.take()
		buf.Reset()
		if dropped > 0 {
			buf.WriteString("event: dropped\ndata: " + strconv.Itoa(dropped) + "\n\n")
		}
		for _, run := range runs {
			if !f.keep(run) {
				continue
			}
			row.Reset()
			if err := p.tmpl.ExecuteTemplate(&row, "row", run); err != nil {
				return
			}
			buf.WriteString("event: run\nid: " + run.ID + "\n")
			for _, ln := range strings.Split(row.String(), "\n") {
				buf.WriteString("data: " + ln + "\n")
			}
			buf.WriteString("\n")
		}
		if buf.Len() > 0 && !send(buf.Bytes()) {
			return
		}
	}
}
