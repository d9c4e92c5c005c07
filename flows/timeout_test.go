package flows_test

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// failure is a way for a hook to fail, or to decide.
type failure string

const (
	ignoresTimeout failure = "timeout (ignores its context)"
	watchesTimeout failure = "timeout (watches its context)"
	panics         failure = "panic"
	returnsError   failure = "error"
	aborts         failure = "abort (a decision)"
)

// failingHook returns a hook that fails as f says. A hook that ignores its
// context blocks until release is closed, then writes to its Context: the
// run must not see that write.
func failingHook(f failure, rec *recorder, mu *sync.Mutex, release <-chan struct{}) flows.HookFunc {
	return func(c *flows.Context) error {
		mu.Lock()
		rec.add("failing")
		mu.Unlock()
		switch f {
		case ignoresTimeout:
			<-release
			c.SetOutput("late write")
			return errors.New("too late")
		case watchesTimeout:
			<-c.Context().Done()
			return c.Context().Err()
		case panics:
			panic("hook broke")
		case returnsError:
			return errors.New("hook failed")
		case aborts:
			return c.Abort(errors.New("hook decided"))
		}
		return nil
	}
}

// TestHookFailurePolicy is the run contract's timeout and failure-policy
// rows: every stage, both policies, every way a hook fails.
func TestHookFailurePolicy(t *testing.T) {
	const hookID = "t/failing"
	type want struct {
		code     flows.Code // the run's error code; 0: succeeds
		decided  bool       // DecidedBy names the failing hook
		failures flows.Code // code of the one recorded fail-open failure; 0: none
		finally  flows.Code // code of the one finally error; 0: none
		next     bool       // the next hook of the stage ran
	}
	mainStages := []stages.Stage{stages.BeforeValidation, stages.AfterValidation, stages.BeforeExecute, stages.AfterExecute}
	type cell struct {
		stage  stages.Stage
		policy flows.FailurePolicy
		f      failure
		want   want
	}
	var cells []cell
	for _, st := range mainStages {
		for _, f := range []failure{ignoresTimeout, watchesTimeout} {
			cells = append(cells,
				cell{st, flows.FailClosed, f, want{code: flows.CodeTimeout, decided: true}},
				cell{st, flows.FailOpen, f, want{failures: flows.CodeTimeout, next: true}})
		}
		cells = append(cells,
			cell{st, flows.FailClosed, panics, want{code: flows.CodePanic, decided: true}},
			cell{st, flows.FailOpen, panics, want{failures: flows.CodePanic, next: true}},
			cell{st, flows.FailClosed, returnsError, want{code: flows.CodeAborted, decided: true}},
			cell{st, flows.FailOpen, returnsError, want{failures: flows.CodeAborted, next: true}},
			cell{st, flows.FailClosed, aborts, want{code: flows.CodeAborted, decided: true}},
			cell{st, flows.FailOpen, aborts, want{code: flows.CodeAborted, decided: true}})
	}
	// In onError the run has already failed (execute fails with
	// CodeFailed): a fail-closed failure replaces the error, a fail-open one
	// leaves it.
	for _, f := range []failure{ignoresTimeout, watchesTimeout} {
		cells = append(cells,
			cell{stages.OnError, flows.FailClosed, f, want{code: flows.CodeTimeout, decided: true, next: true}},
			cell{stages.OnError, flows.FailOpen, f, want{code: flows.CodeFailed, failures: flows.CodeTimeout, next: true}},
			cell{stages.Finally, flows.FailClosed, f, want{finally: flows.CodeTimeout, next: true}},
			cell{stages.Finally, flows.FailOpen, f, want{failures: flows.CodeTimeout, next: true}})
	}
	cells = append(cells,
		cell{stages.OnError, flows.FailClosed, panics, want{code: flows.CodePanic, decided: true, next: true}},
		cell{stages.OnError, flows.FailOpen, panics, want{code: flows.CodeFailed, failures: flows.CodePanic, next: true}},
		cell{stages.OnError, flows.FailOpen, returnsError, want{code: flows.CodeFailed, failures: flows.CodeAborted, next: true}},
		cell{stages.Finally, flows.FailClosed, panics, want{finally: flows.CodePanic, next: true}},
		cell{stages.Finally, flows.FailOpen, panics, want{failures: flows.CodePanic, next: true}},
		cell{stages.Finally, flows.FailClosed, returnsError, want{finally: flows.CodeAborted, next: true}},
		cell{stages.Finally, flows.FailOpen, returnsError, want{failures: flows.CodeAborted, next: true}})

	for _, tt := range cells {
		for _, timed := range []bool{false, true} {
			if (tt.f == ignoresTimeout || tt.f == watchesTimeout) && !timed {
				continue // a timeout needs a Timeout
			}
			name := fmt.Sprintf("%s/%s/%s/timed=%v", tt.stage, tt.policy, tt.f, timed)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				release := make(chan struct{})
				defer close(release)
				var mu sync.Mutex
				rec := &recorder{}
				entry := flows.PlanEntry{ID: hookID, Fn: failingHook(tt.f, rec, &mu, release), OnFailure: tt.policy}
				switch {
				case tt.f == ignoresTimeout || tt.f == watchesTimeout:
					entry.Timeout = 20 * time.Millisecond
				case timed:
					// Long enough for the goroutine to run on a loaded
					// machine: the failure, not the bound, is tested.
					entry.Timeout = time.Minute
				}
				next := flows.PlanEntry{ID: "t/next", Fn: func(c *flows.Context) error {
					mu.Lock()
					defer mu.Unlock()
					rec.add("next")
					return nil
				}}
				plan := &flows.Plan{Flow: flows.ToolsCallTool}
				plan.Stages[tt.stage] = []flows.PlanEntry{entry, next}
				steps := testSteps{rec: &recorder{}}
				if tt.stage == stages.OnError {
					steps.executeErr = errors.New("execute failed")
				}
				var failures []error
				var decided string
				var finallyErrs []error
				out, err := flows.NewRunner(nil).RunInspect(context.Background(),
					flows.Run{Flow: flows.ToolsCallTool, Plan: plan, Steps: steps}, func(c *flows.Context) {
						failures = append(failures, c.Failures()...)
						finallyErrs = append(finallyErrs, c.FinallyErrors()...)
						decided = c.DecidedBy()
					})
				if got := flows.CodeOf(err); got != tt.want.code {
					t.Errorf("run error %v (code %v), want code %v", err, got, tt.want.code)
				}
				if tt.want.code == 0 && out == "late write" {
					t.Errorf("the abandoned hook's late write reached the run")
				}
				if (decided == hookID) != tt.want.decided {
					t.Errorf("DecidedBy = %q, want the failing hook: %v", decided, tt.want.decided)
				}
				checkOne(t, "Failures", failures, tt.want.failures, hookID)
				checkOne(t, "FinallyErrors", finallyErrs, tt.want.finally, hookID)
				mu.Lock()
				ran := strings.Contains(rec.String(), "next")
				mu.Unlock()
				if ran != tt.want.next {
					t.Errorf("next hook ran = %v, want %v (trace %q)", ran, tt.want.next, rec)
				}
			})
		}
	}
}

// checkOne checks that errs holds one *flows.Error of code naming hook, or
// nothing when code is 0.
func checkOne(t *testing.T, what string, errs []error, code flows.Code, hook string) {
	t.Helper()
	if code == 0 {
		if len(errs) != 0 {
			t.Errorf("%s = %v, want none", what, errs)
		}
		return
	}
	var e *flows.Error
	if len(errs) != 1 || !errors.As(errs[0], &e) || e.Code != code || e.Hook != hook {
		t.Errorf("%s = %v, want one %v error of hook %q", what, errs, code, hook)
		return
	}
	if code == flows.CodeTimeout {
		var te *flows.HookTimeoutError
		if !errors.As(e, &te) || te.Hook != hook || !errors.Is(e, context.DeadlineExceeded) {
			t.Errorf("%s: %v does not wrap a *HookTimeoutError of %q that is a deadline", what, e, hook)
		}
	}
}

// TestTimedHookInTime checks that a timed hook that returns in time acts on
// the run as an untimed one would: its changes to input, output and state
// are the run's, and FromContext leads to the Context it was given.
func TestTimedHookInTime(t *testing.T) {
	key := flows.NewKey[string]("k")
	var fromCtx bool
	plan := &flows.Plan{Flow: flows.ToolsCallTool}
	plan.Stages[stages.BeforeExecute] = []flows.PlanEntry{
		{ID: "t/timed", Timeout: time.Minute, Fn: func(c *flows.Context) error {
			fromCtx = flows.FromContext(c.Context()) == c
			c.SetInput("rewritten")
			key.Set(c, "set by the timed hook")
			return nil
		}},
	}
	plan.Stages[stages.AfterExecute] = []flows.PlanEntry{
		{ID: "t/after", Fn: func(c *flows.Context) error {
			v, _ := key.Get(c)
			c.SetOutput(fmt.Sprintf("%v|%v|%v", c.Input(), c.Output(), v))
			return nil
		}},
	}
	rec := &recorder{}
	out, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Input: "raw", Plan: plan, Steps: testSteps{rec: rec}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "rewritten|result|set by the timed hook"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if !fromCtx {
		t.Error("FromContext(c.Context()) in a timed hook is not its Context")
	}
}

// TestTimedHookCanceledRequest checks that a request cancelled while a
// timed hook runs is a cancellation, not the hook's timeout or failure.
func TestTimedHookCanceledRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	plan := &flows.Plan{Flow: flows.ToolsCallTool}
	plan.Stages[stages.BeforeExecute] = []flows.PlanEntry{
		{ID: "t/timed", Timeout: time.Minute, OnFailure: flows.FailOpen, Fn: func(c *flows.Context) error {
			cancel()
			<-release
			return nil
		}},
	}
	var failures []error
	_, err := flows.NewRunner(nil).RunInspect(ctx, flows.Run{Flow: flows.ToolsCallTool, Plan: plan, Steps: testSteps{rec: &recorder{}}},
		func(c *flows.Context) { failures = c.Failures() })
	if flows.CodeOf(err) != flows.CodeCanceled {
		t.Errorf("err = %v, want CodeCanceled", err)
	}
	if len(failures) != 0 {
		t.Errorf("Failures = %v, want none: a cancellation is not the hook's failure", failures)
	}
}

func TestParseFailurePolicy(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want flows.FailurePolicy
		err  string
	}{
		{in: "open", want: flows.FailOpen},
		{in: "closed", want: flows.FailClosed},
		{in: "opn", err: `unknown failure policy "opn": want closed or open (did you mean "open"?)`},
		{in: "", err: `unknown failure policy ""`},
	} {
		got, err := flows.ParseFailurePolicy(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || flows.CodeOf(err) != flows.CodeInvalid {
				t.Errorf("Parse(%q) = %v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.in {
			t.Errorf("Parse(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// TestFailurePolicyText is the policy's spelling in configuration files
// and JSON: the words String gives, read back by UnmarshalText, and
// nothing else.
func TestFailurePolicyText(t *testing.T) {
	for _, p := range []flows.FailurePolicy{flows.FailClosed, flows.FailOpen} {
		text, err := p.MarshalText()
		if err != nil || string(text) != p.String() {
			t.Errorf("%v.MarshalText() = %q, %v; want %q", p, text, err, p.String())
		}
		var back flows.FailurePolicy
		if p == flows.FailClosed {
			back = flows.FailOpen // so that a no-op UnmarshalText fails
		}
		if err := back.UnmarshalText(text); err != nil || back != p {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, p)
		}
	}
	var _ encoding.TextUnmarshaler = new(flows.FailurePolicy)
	var _ encoding.TextMarshaler = flows.FailOpen
	p := flows.FailOpen
	err := p.UnmarshalText([]byte("closd"))
	if want := `hookflow: invalid: unknown failure policy "closd": want closed or open (did you mean "closed"?)`; err == nil || err.Error() != want || p != flows.FailOpen {
		t.Errorf("UnmarshalText(closd) = %v (policy %v); want %q and the policy unchanged", err, p, want)
	}
	if text, err := flows.FailurePolicy(7).MarshalText(); flows.CodeOf(err) != flows.CodeInvalid {
		t.Errorf("FailurePolicy(7).MarshalText() = %q, %v; want a CodeInvalid error", text, err)
	}
	b, err := json.Marshal(struct{ P flows.FailurePolicy }{flows.FailOpen})
	if err != nil || string(b) != `{"P":"open"}` {
		t.Errorf("json.Marshal = %s, %v; want {\"P\":\"open\"}", b, err)
	}
}
