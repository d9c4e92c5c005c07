package plugins_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/audit"
)

// rec is one audit event as a slog.Handler sink received it.
type rec struct {
	flow, entity, session, request, principal, outcome, decidedBy, err string
	all                                                                string // every attribute, for secrets
}

// recorder is a slog.Handler collecting audit events.
type recorder struct {
	mu  sync.Mutex
	evs []rec
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }

func (r *recorder) Handle(_ context.Context, sr slog.Record) error {
	var ev rec
	var all strings.Builder
	all.WriteString(sr.Message)
	sr.Attrs(func(a slog.Attr) bool {
		v := a.Value.String()
		if raw, ok := a.Value.Any().(json.RawMessage); ok {
			v = string(raw)
		}
		fmt.Fprintf(&all, " %s=%s", a.Key, v)
		switch a.Key {
		case "flow":
			ev.flow = v
		case "entity":
			ev.entity = v
		case "session_id":
			ev.session = v
		case "request_id":
			ev.request = v
		case "principal":
			ev.principal = v
		case "outcome":
			ev.outcome = v
		case "decided_by":
			ev.decidedBy = v
		case "error":
			ev.err = v
		}
		return true
	})
	ev.all = all.String()
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
	return nil
}

func (r *recorder) events() []rec {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// stuckSink blocks every write until released: a sink that hangs.
type stuckSink struct {
	recorder
	release chan struct{}
	entered atomic.Int64
	once    sync.Once
}

func (s *stuckSink) Handle(ctx context.Context, sr slog.Record) error {
	s.entered.Add(1)
	<-s.release
	return s.recorder.Handle(ctx, sr)
}

func (s *stuckSink) unblock() { s.once.Do(func() { close(s.release) }) }

// failingSink fails every write: an error, or a panic every other time.
type failingSink struct{ n atomic.Int64 }

func (f *failingSink) Enabled(context.Context, slog.Level) bool { return true }
func (f *failingSink) WithAttrs([]slog.Attr) slog.Handler       { return f }
func (f *failingSink) WithGroup(string) slog.Handler            { return f }
func (f *failingSink) Handle(context.Context, slog.Record) error {
	if f.n.Add(1)%2 == 0 {
		panic("audit sink exploded")
	}
	return errors.New("audit sink: disk full")
}

func flush(t *testing.T, a *audit.Plugin) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("audit Flush: %v", err)
	}
}
