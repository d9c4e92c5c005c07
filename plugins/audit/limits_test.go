package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
)

// An invalid argument is recorded by where it failed the schema, never by
// its value: a redacted field cannot leak through the error text.
func TestInvalidInputErrorHasNoValue(t *testing.T) {
	tests := []struct {
		name     string
		args     map[string]any
		wantPath string // in Event.Error
	}{
		{"wrong type", map[string]any{"text": []any{"hunter2"}}, "/properties/text"},
		{"nested value", map[string]any{"text": map[string]any{"pw": "hunter2"}}, "/properties/text"},
		{"unknown field", map[string]any{"text": "t", "extra": "hunter2"}, "validating root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &lines{}
			aud := newAudit(t, out, audit.Config{Redact: []string{"text", "extra"}, Flows: []flows.ID{flows.ToolsCallTool}})
			h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
			res := h.Call(plugintest.ToolEcho, tt.args)
			if !res.IsError() {
				t.Fatalf("call %v: want an isError result, got %v", tt.args, res)
			}
			flush(t, aud)
			evs := out.events(t)
			if len(evs) != 1 {
				t.Fatalf("%d events, want 1", len(evs))
			}
			ev := evs[0]
			if ev.Outcome != audit.Failed || !strings.Contains(ev.Error, tt.wantPath) {
				t.Errorf("outcome %s, error %q: want %s naming %s", ev.Outcome, ev.Error, audit.Failed, tt.wantPath)
			}
			if strings.Contains(out.String(), "hunter2") {
				t.Errorf("the redacted value reached the audit trail: %s", out.String())
			}
		})
	}
}

// One caller cannot flush the audit trail: args and error are capped per
// event, and the event says what was cut.
func TestEventSizeIsCapped(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name          string
		cfg           audit.Config
		tool          string
		maxArgs       int
		maxText       int
		wantTruncated []string
	}{
		{"defaults, args", audit.Config{}, plugintest.ToolEcho, audit.DefaultMaxArgsBytes, audit.DefaultMaxTextBytes, []string{"args"}},
		{"defaults, args and error", audit.Config{}, plugintest.ToolFail, audit.DefaultMaxArgsBytes, audit.DefaultMaxTextBytes, []string{"args", "error"}},
		{"configured", audit.Config{MaxArgsBytes: 100, MaxTextBytes: 50}, plugintest.ToolFail, 100, 50, []string{"args", "error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &lines{}
			tt.cfg.Flows = []flows.ID{flows.ToolsCallTool}
			aud := newAudit(t, out, tt.cfg)
			h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
			h.Call(tt.tool, plugintest.Text{Text: big})
			h.Call(tt.tool, plugintest.Text{Text: "small"})
			flush(t, aud)
			evs := out.events(t)
			if len(evs) != 2 {
				t.Fatalf("%d events, want 2", len(evs))
			}
			ev := evs[0]
			// Truncated args are a JSON string: the start of the redacted
			// arguments.
			var start string
			if err := json.Unmarshal(ev.Args, &start); err != nil {
				t.Fatalf("truncated args %.80s…: want a JSON string: %v", ev.Args, err)
			}
			if len(start) > tt.maxArgs || !strings.HasPrefix(start, `{"text":"xxx`) {
				t.Errorf("args: %d bytes starting %.20q, want at most %d starting with the arguments", len(start), start, tt.maxArgs)
			}
			if len(ev.Error) > tt.maxText {
				t.Errorf("error: %d bytes, want at most %d", len(ev.Error), tt.maxText)
			}
			if strings.Join(ev.Truncated, ",") != strings.Join(tt.wantTruncated, ",") {
				t.Errorf("truncated %v, want %v", ev.Truncated, tt.wantTruncated)
			}
			if small := evs[1]; small.Truncated != nil || string(small.Args) != `{"text":"small"}` {
				t.Errorf("a small event: args %s, truncated %v; want them whole", small.Args, small.Truncated)
			}
		})
	}
}

// Nine calls with big arguments no longer rotate an earlier event out of
// the live file (the 3.5 MB against the default 10 MiB, scaled
// down: 40 KiB against 128 KiB).
func TestBigCallsDoNotRotateTheTrail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	aud := audit.New(audit.Config{File: audit.File{Path: path, MaxBytes: 128 << 10}, Flows: []flows.ID{flows.ToolsCallTool}})
	t.Cleanup(func() { _ = aud.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "first"})
	big := strings.Repeat("y", 40<<10)
	for range 9 {
		h.Call(plugintest.ToolEcho, plugintest.Text{Text: big})
	}
	if err := aud.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs := decode(t, b)
	if len(evs) != 10 || string(evs[0].Args) != `{"text":"first"}` {
		t.Fatalf("the live file holds %d events (first args %.40s), want all 10 from the first call", len(evs), evs[0].Args)
	}
}

func TestBadLimits(t *testing.T) {
	for _, tt := range []struct {
		cfg  audit.Config
		want string
	}{
		{audit.Config{MaxArgsBytes: -1}, "max_args_bytes: must not be negative"},
		{audit.Config{MaxTextBytes: -5}, "max_text_bytes: must not be negative"},
	} {
		p := audit.New(tt.cfg)
		err := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}}).Start()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Start() = %v, want %q", err, tt.want)
		}
		_ = p.Close(context.Background())
	}
}

// Close gives up when its context ends; the events it could not write are
// counted as dropped, once, even when the stuck sink returns later.
func TestCloseIsBounded(t *testing.T) {
	release := make(chan struct{})
	aud := audit.New(audit.Config{Handler: blockingHandler{slog.NewJSONHandler(&lines{}, nil), release}, QueueSize: 8, Flows: []flows.ID{flows.ToolsCallTool}})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{aud}})
	const calls = 5 // one held by the stuck sink, four queued
	for range calls {
		h.Call(plugintest.ToolEcho, plugintest.Text{Text: "x"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- aud.Close(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Close() = %v, want the context's error", err)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("Close did not return when its context ended")
	}
	if d, w := aud.Dropped(), aud.Written(); d != calls || w != 0 {
		t.Errorf("after Close: Dropped() = %d, Written() = %d; want %d and 0", d, w, calls)
	}
	close(release) // the sink returns: its event was counted already
	if err := aud.Close(context.Background()); err != nil {
		t.Errorf("a second Close, once the sink returned: %v", err)
	}
	if d, w := aud.Dropped(), aud.Written(); d != calls || w != 0 {
		t.Errorf("after the sink returned: Dropped() = %d, Written() = %d; want %d and 0", d, w, calls)
	}
}
