package flows_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/hookflow/hookflow/flows"
)

// recorder collects the trace of one run: which hooks and steps ran, in order.
type recorder struct{ trace []string }

func (r *recorder) add(s string)   { r.trace = append(r.trace, s) }
func (r *recorder) String() string { return strings.Join(r.trace, " ") }

// testSteps is a flow's validate and execute steps that record themselves and
// fail or panic on demand. Execute sets the output "result".
type testSteps struct {
	rec           *recorder
	validateErr   error
	validatePanic any
	executeErr    error
	executePanic  any
}

func (s testSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	s.rec.add("validate")
	if s.validatePanic != nil {
		panic(s.validatePanic)
	}
	return c.Input(), nil, s.validateErr
}

func (s testSteps) Execute(c *flows.Context) (any, error) {
	s.rec.add("execute")
	if s.executePanic != nil {
		panic(s.executePanic)
	}
	if s.executeErr != nil {
		return nil, s.executeErr
	}
	return "result", nil
}

// logRecorder is a slog.Handler that keeps every record, so tests can check
// what the runner logged.
type logRecorder struct {
	mu      sync.Mutex
	records []logRecord
}

type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecorder) WithGroup(string) slog.Handler            { return h }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.records = append(h.records, rec)
	h.mu.Unlock()
	return nil
}

func (h *logRecorder) all() []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]logRecord(nil), h.records...)
}

func (h *logRecorder) count(level slog.Level) int {
	n := 0
	for _, r := range h.all() {
		if r.level == level {
			n++
		}
	}
	return n
}

// runResult is what a test reads from a run before its Context is released.
type runResult struct {
	out         any
	err         error
	decided     string
	responded   bool
	finallyErrs []error
}

// runOne runs plan once on a Context from r and collects the outcome.
func runOne(t testing.TB, r *flows.Runner, ctx context.Context, plan *flows.Plan, steps flows.Steps) runResult {
	t.Helper()
	var res runResult
	out, err := r.RunInspect(ctx, flows.Run{Flow: plan.Flow, Input: "raw input", Plan: plan, Steps: steps}, func(c *flows.Context) {
		if c.Err() != res.err {
			res.err = c.Err()
		}
		res.decided = c.DecidedBy()
		res.responded = c.Responded()
		res.finallyErrs = append([]error(nil), c.FinallyErrors()...)
	})
	if res.err != err {
		t.Errorf("Run returned %v but Context.Err() is %v", err, res.err)
	}
	res.out, res.err = out, err
	return res
}

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }
