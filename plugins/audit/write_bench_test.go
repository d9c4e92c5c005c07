package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
)

// benchEvent is a tools/call's event as the writer gets it.
func benchItem() *item {
	return &item{ev: Event{Time: time.Now(), Flow: flows.ToolsCallTool, Entity: "greet", SessionID: "6YQ2KXG4N3VJ5ZQW",
		RequestID: "req-12345", Principal: "ann", Outcome: OK, Duration: 41 * time.Microsecond},
		args: json.RawMessage(`{"n":12345,"name":"bench"}`)}
}

// BenchmarkAuditWrite measures the writer's work for one event, off the
// request path: redacting and capping it, and writing it to a slog JSON
// handler (discarding) or as a JSON line to a file; encode is the file
// line's encoding alone, against json.Marshal.
func BenchmarkAuditWrite(b *testing.B) {
	newPlugin := func(b *testing.B, s sink) *Plugin {
		r, err := flows.NewRedactor(flows.Redaction{})
		if err != nil {
			b.Fatal(err)
		}
		return &Plugin{cfg: Config{MaxArgsBytes: DefaultMaxArgsBytes, MaxTextBytes: DefaultMaxTextBytes}, redact: r, sinks: []sink{s}}
	}
	run := func(b *testing.B, p *Plugin) {
		src := benchItem()
		b.ReportAllocs()
		for b.Loop() {
			it := p.item()
			*it = *src
			if !p.handle(it) {
				b.Fatal("handle gave up")
			}
		}
		if p.Dropped() != 0 {
			b.Fatalf("%d dropped", p.Dropped())
		}
	}
	b.Run("slog-json", func(b *testing.B) {
		p := newPlugin(b, handlerSink{slog.NewJSONHandler(io.Discard, nil)})
		p.items.New = func() any { return new(item) }
		run(b, p)
	})
	b.Run("file", func(b *testing.B) {
		f, err := openRotatingFile(filepath.Join(b.TempDir(), "audit.jsonl"), 1<<30, 1)
		if err != nil {
			b.Fatal(err)
		}
		p := newPlugin(b, &fileSink{f: f})
		p.items.New = func() any { return new(item) }
		run(b, p)
		_ = f.close()
	})
	ev := benchItem().ev
	ev.Args = json.RawMessage(`{"n":12345,"name":"bench"}`)
	b.Run("encode", func(b *testing.B) {
		var scratch bytes.Buffer
		var line []byte
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if line, err = ev.appendJSON(line[:0], &scratch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode=json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRecordAllocs guards what building the slog record of an event with
// arguments allocates: the boxed arguments and the record's storage past
// its first five attributes, grown once.
func TestRecordAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ev := benchItem().ev
	ev.Args = json.RawMessage(`{"n":12345,"name":"bench"}`)
	ev.DecidedBy, ev.Error = "policy", "denied"
	var r slog.Record
	if got := testing.AllocsPerRun(1000, func() { r = ev.record() }); got != 2 {
		t.Errorf("%v allocations a record, want 2", got)
	}
	if r.NumAttrs() < 8 {
		t.Errorf("%d attributes, want the event's", r.NumAttrs())
	}
}
