package flows_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

var (
	errHook  = errors.New("hook says no")
	errExec  = errors.New("execute failed")
	errValid = errors.New("input invalid")
)

// shortNames are the stage prefixes of the hook names in traces: "bv1" is
// hook 1 of beforeValidation.
var shortNames = [stages.Count]string{
	stages.BeforeValidation: "bv",
	stages.AfterValidation:  "av",
	stages.BeforeExecute:    "be",
	stages.AfterExecute:     "ae",
	stages.OnError:          "oe",
	stages.Finally:          "f",
}

func stageOf(short string) stages.Stage {
	for s, p := range shortNames {
		if strings.TrimRight(short, "0123456789") == p {
			return stages.Stage(s)
		}
	}
	panic("no stage for " + short)
}

// act is what the hook under test does: one column of the run-contract table.
type act int

const (
	actNil      act = iota // return nil
	actSkip                // c.Skip()
	actReturn              // return errHook
	actAbort               // c.Abort(errHook), then return nil
	actAbortNil            // c.Abort(nil), then return nil
	actRespond             // c.Respond("early")
	actPanic               // panic(errHook)
	actCancel              // cancel the request's context
)

var actNames = [...]string{"nil", "Skip", "return-err", "Abort(err)", "Abort(nil)", "Respond", "panic", "cancel"}

func (a act) String() string { return actNames[a] }

func (a act) do(t *testing.T, c *flows.Context, cancel context.CancelFunc) error {
	switch a {
	case actSkip:
		c.Skip()
	case actReturn:
		return errHook
	case actAbort:
		if got := c.Abort(errHook); got != errHook {
			t.Errorf("Abort(errHook) returned %v", got)
		}
	case actAbortNil:
		if got := c.Abort(nil); got != flows.ErrAborted {
			t.Errorf("Abort(nil) returned %v, want ErrAborted", got)
		}
	case actRespond:
		c.Respond("early")
	case actPanic:
		panic(errHook)
	case actCancel:
		cancel()
	}
	return nil
}

// contractRun is one run of tools:call-tool with two hooks on every stage,
// "1" (priority 10) then "2" (priority 0), each recording its name in the
// trace; the hook named by at does act instead of returning nil. A sentinel
// finally hook with the highest priority counts finally runs and records the
// error finally sees.
type contractRun struct {
	rec         recorder
	ids         map[string]string // short name → hook ID
	finallyRuns int
	finallySaw  error
	plan        *flows.Plan
}

func newContractRun(t *testing.T, at string, a act, cancel context.CancelFunc) *contractRun {
	t.Helper()
	cr := &contractRun{ids: map[string]string{}}
	s := scope.New("srv")
	var hooks []flows.Hook
	var names []string
	for st := range stages.Count {
		for i, prio := range []int{10, 0} {
			name := shortNames[st] + string(rune('1'+i))
			hooks = append(hooks, flows.Hook{
				Flow: flows.ToolsCallTool, Stage: stages.Stage(st), Priority: prio, Name: name,
				Fn: func(c *flows.Context) error {
					if c.Stage() != stages.Stage(st) {
						t.Errorf("hook %s sees stage %v", name, c.Stage())
					}
					cr.rec.add(name)
					if name == at {
						return a.do(t, c, cancel)
					}
					return nil
				},
			})
			names = append(names, name)
		}
	}
	hooks = append(hooks, flows.Hook{
		Flow: flows.ToolsCallTool, Stage: stages.Finally, Priority: priority.Max, Name: "sentinel",
		Fn: func(c *flows.Context) error {
			cr.finallyRuns++
			cr.finallySaw = c.Err()
			return nil
		},
	})
	ids, err := s.Register(hooks...)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		cr.ids[n] = ids[i]
	}
	cr.plan = s.Plan(flows.ToolsCallTool, nil, nil).Load()
	return cr
}

const fullTrace = "bv1 bv2 validate av1 av2 be1 be2 execute ae1 ae2 f1 f2"

// cell is one cell of the run-contract table in the flows package doc.
type cell struct {
	at      string // the hook that acts, e.g. "bv1"
	act     act
	execErr bool // execute fails with errExec, so that onError runs

	trace       string
	errIs       error      // nil: the run succeeds
	notIs       error      // the error must not be this one (it was replaced)
	code        flows.Code // flows.CodeOf(err)
	errHook     string     // the hook the *Error names, "" for none
	out         any
	decided     string // short name of DecidedBy's hook, "" for none
	responded   bool
	finallyErrs int
	errorLogs   int
	warnLogs    int
	panicValue  any // the value a CodePanic error carries; errHook when nil
}

func contractCells() []cell {
	var cells []cell
	// The four main stages behave alike; what differs is where the trace stops.
	for _, m := range []struct {
		s        string
		prefix   string // the trace up to and including hook 1 of the stage
		skip     string // the trace when hook 1 skips the rest of its stage
		respond  string
		failOut  any // the output of a failed run: set only once execute ran
		finalOut any
	}{
		{"bv", "bv1", "bv1 validate av1 av2 be1 be2 execute ae1 ae2 f1 f2", "bv1 ae1 ae2 f1 f2", nil, "early"},
		{"av", "bv1 bv2 validate av1", "bv1 bv2 validate av1 be1 be2 execute ae1 ae2 f1 f2", "bv1 bv2 validate av1 ae1 ae2 f1 f2", nil, "early"},
		{"be", "bv1 bv2 validate av1 av2 be1", "bv1 bv2 validate av1 av2 be1 execute ae1 ae2 f1 f2", "bv1 bv2 validate av1 av2 be1 ae1 ae2 f1 f2", nil, "early"},
		{"ae", "bv1 bv2 validate av1 av2 be1 be2 execute ae1", "bv1 bv2 validate av1 av2 be1 be2 execute ae1 f1 f2", "bv1 bv2 validate av1 av2 be1 be2 execute ae1 f1 f2", "result", "early"},
	} {
		h1, h2 := m.s+"1", m.s+"2"
		failed := m.prefix + " oe1 oe2 f1 f2"
		cells = append(cells,
			cell{at: h1, act: actNil, trace: fullTrace, out: "result"},
			cell{at: h1, act: actSkip, trace: m.skip, out: "result"},
			cell{at: h1, act: actReturn, trace: failed, errIs: errHook, code: flows.CodeAborted, errHook: h1, out: m.failOut, decided: h1},
			cell{at: h1, act: actAbort, trace: failed, errIs: errHook, code: flows.CodeAborted, errHook: h1, out: m.failOut, decided: h1},
			cell{at: h1, act: actAbortNil, trace: failed, errIs: flows.ErrAborted, code: flows.CodeAborted, errHook: h1, out: m.failOut, decided: h1},
			cell{at: h1, act: actRespond, trace: m.respond, out: m.finalOut, decided: h1, responded: true},
			// A panic is logged with its value and stack (clients never see them).
			cell{at: h1, act: actPanic, trace: failed, errIs: errHook, code: flows.CodePanic, errHook: h1, out: m.failOut, decided: h1, errorLogs: 1},
			// The cancellation is seen before the next hook, which does not run.
			cell{at: h1, act: actCancel, trace: failed, errIs: context.Canceled, code: flows.CodeCanceled, errHook: h2, out: m.failOut},
		)
	}

	// onError: execute fails, so onError runs with errExec, wrapped in an
	// *Error naming the execute step (CodeFailed).
	const failed = "bv1 bv2 validate av1 av2 be1 be2 execute oe1"
	cells = append(cells,
		cell{at: "oe1", act: actNil, execErr: true, trace: failed + " oe2 f1 f2", errIs: errExec, code: flows.CodeFailed},
		cell{at: "oe1", act: actSkip, execErr: true, trace: failed + " f1 f2", errIs: errExec, code: flows.CodeFailed},
		cell{at: "oe1", act: actReturn, execErr: true, trace: failed + " oe2 f1 f2", errIs: errHook, notIs: errExec, code: flows.CodeAborted, errHook: "oe1", decided: "oe1"},
		cell{at: "oe1", act: actAbort, execErr: true, trace: failed + " oe2 f1 f2", errIs: errHook, notIs: errExec, code: flows.CodeAborted, errHook: "oe1", decided: "oe1"},
		cell{at: "oe1", act: actAbortNil, execErr: true, trace: failed + " oe2 f1 f2", errIs: flows.ErrAborted, notIs: errExec, code: flows.CodeAborted, errHook: "oe1", decided: "oe1"},
		cell{at: "oe1", act: actRespond, execErr: true, trace: failed + " f1 f2", out: "early", decided: "oe1", responded: true},
		cell{at: "oe1", act: actPanic, execErr: true, trace: failed + " oe2 f1 f2", errIs: errHook, notIs: errExec, code: flows.CodePanic, errHook: "oe1", decided: "oe1", errorLogs: 1},
		// onError does not check the context: the next onError hook runs.
		cell{at: "oe1", act: actCancel, execErr: true, trace: failed + " oe2 f1 f2", errIs: errExec, code: flows.CodeFailed},
	)

	// finally: nothing a finally hook does changes the outcome.
	const done = "bv1 bv2 validate av1 av2 be1 be2 execute ae1 ae2 f1"
	cells = append(cells,
		cell{at: "f1", act: actNil, trace: done + " f2", out: "result"},
		cell{at: "f1", act: actSkip, trace: done, out: "result"},
		cell{at: "f1", act: actReturn, trace: done + " f2", out: "result", finallyErrs: 1, errorLogs: 1},
		cell{at: "f1", act: actAbort, trace: done + " f2", out: "result", finallyErrs: 1, errorLogs: 1},
		cell{at: "f1", act: actAbortNil, trace: done + " f2", out: "result", finallyErrs: 1, errorLogs: 1},
		cell{at: "f1", act: actRespond, trace: done + " f2", out: "result", warnLogs: 1},
		cell{at: "f1", act: actPanic, trace: done + " f2", out: "result", finallyErrs: 1, errorLogs: 1},
		cell{at: "f1", act: actCancel, trace: done + " f2", out: "result"},
	)
	return cells
}

// TestRunContract checks every cell of the run-contract table: each thing a
// hook can do, in each stage.
func TestRunContract(t *testing.T) {
	cells := contractCells()
	if len(cells) != 8*stages.Count {
		t.Fatalf("%d cells, want %d", len(cells), 8*stages.Count)
	}
	for _, tc := range cells {
		t.Run(tc.at+"/"+tc.act.String(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cr := newContractRun(t, tc.at, tc.act, cancel)
			logs := &logRecorder{}
			r := flows.NewRunner(&flows.RunnerOptions{Logger: slog.New(logs)})
			steps := testSteps{rec: &cr.rec}
			if tc.execErr {
				steps.executeErr = errExec
			}
			res := runOne(t, r, ctx, cr.plan, steps)
			checkCell(t, tc, cr, res, logs)
		})
	}
}

func checkCell(t *testing.T, tc cell, cr *contractRun, res runResult, logs *logRecorder) {
	t.Helper()
	if got := cr.rec.String(); got != tc.trace {
		t.Errorf("trace:\n got %s\nwant %s", got, tc.trace)
	}
	if tc.errIs == nil {
		if res.err != nil {
			t.Errorf("Run() = %v, want success", res.err)
		}
	} else {
		if !errors.Is(res.err, tc.errIs) {
			t.Errorf("Run() = %v, want an error that is %v", res.err, tc.errIs)
		}
		if tc.notIs != nil && errors.Is(res.err, tc.notIs) {
			t.Errorf("Run() = %v, which still is %v: it should have been replaced", res.err, tc.notIs)
		}
		if got := flows.CodeOf(res.err); got != tc.code {
			t.Errorf("CodeOf(err) = %v, want %v", got, tc.code)
		}
	}
	if tc.errHook != "" {
		var e *flows.Error
		if !errors.As(res.err, &e) {
			t.Fatalf("Run() = %v, want a *flows.Error", res.err)
		}
		// A cancellation names the hook that was about to run in its
		// message, not as the hook that failed.
		wantHook := cr.ids[tc.errHook]
		if tc.code == flows.CodeCanceled {
			wantHook = ""
		}
		if e.Flow != flows.ToolsCallTool || e.Stage != stageOf(tc.errHook) || e.Hook != wantHook || e.Step != "" {
			t.Errorf("*Error at flow=%q stage=%v hook=%q step=%q; want %q %v %q (hook %s)",
				e.Flow, e.Stage, e.Hook, e.Step, flows.ToolsCallTool, stageOf(tc.errHook), wantHook, tc.errHook)
		}
		if !strings.Contains(e.Error(), cr.ids[tc.errHook]) {
			t.Errorf("Error() = %q does not name the hook", e.Error())
		}
	}
	if tc.code == flows.CodePanic {
		var p *flows.PanicError
		if !errors.As(res.err, &p) {
			t.Fatalf("Run() = %v, want a *PanicError cause", res.err)
		}
		want := tc.panicValue
		if want == nil {
			want = errHook
		}
		if p.Value != want {
			t.Errorf("PanicError.Value = %v, want %v", p.Value, want)
		}
		if !strings.Contains(string(p.Stack), "contract_test.go") {
			t.Errorf("PanicError.Stack does not show the panicking hook:\n%s", p.Stack)
		}
	}
	if res.out != tc.out {
		t.Errorf("Output() = %v, want %v", res.out, tc.out)
	}
	wantDecided := ""
	if tc.decided != "" {
		wantDecided = cr.ids[tc.decided]
	}
	if res.decided != wantDecided {
		t.Errorf("DecidedBy() = %q, want %q", res.decided, wantDecided)
	}
	if res.responded != tc.responded {
		t.Errorf("Responded() = %v, want %v", res.responded, tc.responded)
	}
	if cr.finallyRuns != 1 {
		t.Errorf("finally ran %d times, want exactly once", cr.finallyRuns)
	}
	if cr.finallySaw != res.err {
		t.Errorf("finally saw Err() = %v, but the run's outcome is %v", cr.finallySaw, res.err)
	}
	if len(res.finallyErrs) != tc.finallyErrs {
		t.Errorf("FinallyErrors() = %v, want %d", res.finallyErrs, tc.finallyErrs)
	}
	for _, fe := range res.finallyErrs {
		var e *flows.Error
		if !errors.As(fe, &e) || e.Stage != stages.Finally || e.Hook != cr.ids[tc.at] {
			t.Errorf("finally error %v does not name finally hook %s", fe, tc.at)
		}
		if !errors.Is(fe, errHook) && !errors.Is(fe, flows.ErrAborted) {
			t.Errorf("finally error %v lost its cause", fe)
		}
		wantCode := flows.CodeAborted
		if tc.act == actPanic {
			wantCode = flows.CodePanic
		}
		if flows.CodeOf(fe) != wantCode {
			t.Errorf("finally error code = %v, want %v", flows.CodeOf(fe), wantCode)
		}
	}
	if got := logs.count(slog.LevelError); got != tc.errorLogs {
		t.Errorf("%d error logs, want %d: %+v", got, tc.errorLogs, logs.all())
	}
	if got := logs.count(slog.LevelWarn); got != tc.warnLogs {
		t.Errorf("%d warning logs, want %d: %+v", got, tc.warnLogs, logs.all())
	}
	for _, rec := range logs.all() {
		if rec.attrs["hook"] != cr.ids[tc.at] || rec.attrs["flow"] != string(flows.ToolsCallTool) {
			t.Errorf("log %q has attrs %v; want the hook %s and the flow", rec.msg, rec.attrs, tc.at)
		}
	}
}

// A request cancelled before the run starts stops at the first hook; onError
// and finally still run.
func TestRunCanceledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cr := newContractRun(t, "", actNil, nil)
	res := runOne(t, flows.NewRunner(nil), ctx, cr.plan, testSteps{rec: &cr.rec})
	checkCell(t, cell{trace: "oe1 oe2 f1 f2", errIs: context.Canceled, code: flows.CodeCanceled, errHook: "bv1"}, cr, res, &logRecorder{})
}

// A deadline is a cancellation too.
func TestRunDeadlineExceeded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), -1)
	defer cancel()
	cr := newContractRun(t, "", actNil, nil)
	res := runOne(t, flows.NewRunner(nil), ctx, cr.plan, testSteps{rec: &cr.rec})
	checkCell(t, cell{trace: "oe1 oe2 f1 f2", errIs: context.DeadlineExceeded, code: flows.CodeCanceled, errHook: "bv1"}, cr, res, &logRecorder{})
}

// The flow's own steps: their failures go through onError and finally too.
func TestRunStepFailures(t *testing.T) {
	invalidInput := &flows.Error{Code: flows.CodeInvalidInput, Flow: flows.ToolsCallTool, Step: "validate", Err: errValid}
	tests := []struct {
		name  string
		steps testSteps
		trace string
		errIs error
		code  flows.Code
		step  string // the Step the *Error names, "" when the step's own *Error is kept
	}{
		{"validate error", testSteps{validateErr: errValid}, "bv1 bv2 validate oe1 oe2 f1 f2", errValid, flows.CodeInvalidInput, "validate"},
		{"validate *Error", testSteps{validateErr: invalidInput}, "bv1 bv2 validate oe1 oe2 f1 f2", errValid, flows.CodeInvalidInput, ""},
		{"validate panic", testSteps{validatePanic: errValid}, "bv1 bv2 validate oe1 oe2 f1 f2", errValid, flows.CodePanic, "validate"},
		{"execute error", testSteps{executeErr: errExec}, "bv1 bv2 validate av1 av2 be1 be2 execute oe1 oe2 f1 f2", errExec, flows.CodeFailed, "execute"},
		{"execute panic", testSteps{executePanic: errExec}, "bv1 bv2 validate av1 av2 be1 be2 execute oe1 oe2 f1 f2", errExec, flows.CodePanic, "execute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := newContractRun(t, "", actNil, nil)
			tt.steps.rec = &cr.rec
			res := runOne(t, flows.NewRunner(nil), context.Background(), cr.plan, tt.steps)
			checkCell(t, cell{trace: tt.trace, errIs: tt.errIs, code: tt.code, panicValue: tt.errIs}, cr, res, &logRecorder{})
			if res.err == nil {
				t.Fatal("the run succeeded")
			}
			if tt.steps.validateErr == invalidInput && res.err != error(invalidInput) {
				t.Errorf("a step's *Error was not passed on unchanged: %v", res.err)
			}
			if tt.step != "" {
				var e *flows.Error
				if !errors.As(res.err, &e) || e.Step != tt.step || e.Hook != "" || e.Code != tt.code {
					t.Errorf("Run() = %#v, want a %v *Error naming step %q", res.err, tt.code, tt.step)
				}
				if strings.Contains(res.err.Error(), "Validation:") || strings.Contains(res.err.Error(), "Execute:") {
					t.Errorf("Error() = %q names a stage: a step runs between stages", res.err.Error())
				}
			}
			if tt.code == flows.CodePanic {
				var p *flows.PanicError
				if !errors.As(res.err, &p) || len(p.Stack) == 0 {
					t.Errorf("Run() = %#v, want a *PanicError with a stack", res.err)
				}
				if !strings.Contains(res.err.Error(), tt.step+" panicked") {
					t.Errorf("Error() = %q", res.err.Error())
				}
			}
			if res.decided != "" {
				t.Errorf("DecidedBy() = %q, want none: no hook decided", res.decided)
			}
		})
	}
}

// onError hooks run in order; an error replaces the flow's error and the next
// onError hook sees it; a Respond recovers the flow.
func TestOnErrorChain(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	tests := []struct {
		name    string
		recover bool
		wantIs  error
		decided string
	}{
		{"replace twice", false, errB, "b"},
		{"replace then recover", true, nil, "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scope.New("srv")
			var seen []error
			var finallySaw error
			hook := func(name string, prio int, fn flows.HookFunc) flows.Hook {
				return flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.OnError, Name: name, Priority: prio, Fn: fn}
			}
			ids, err := s.Register(
				hook("a", 30, func(c *flows.Context) error { seen = append(seen, c.Err()); return errA }),
				hook("b", 20, func(c *flows.Context) error { seen = append(seen, c.Err()); return c.Abort(errB) }),
				hook("c", 10, func(c *flows.Context) error {
					seen = append(seen, c.Err())
					if tt.recover {
						c.Respond("recovered")
					}
					return nil
				}),
				flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "f", Fn: func(c *flows.Context) error {
					finallySaw = c.Err()
					return nil
				}},
			)
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]string{"a": ids[0], "b": ids[1], "c": ids[2]}
			plan := s.Plan(flows.ToolsCallTool, nil, nil).Load()
			res := runOne(t, flows.NewRunner(nil), context.Background(), plan, testSteps{rec: &recorder{}, executeErr: errExec})

			if len(seen) != 3 || !errors.Is(seen[0], errExec) || flows.CodeOf(seen[0]) != flows.CodeFailed || !errors.Is(seen[1], errA) || !errors.Is(seen[2], errB) {
				t.Errorf("onError hooks saw %v; want execute's error, then a's, then b's", seen)
			}
			if tt.wantIs == nil {
				if res.err != nil || res.out != "recovered" || !res.responded {
					t.Errorf("Run() = %v, out %v, responded %v; want recovered", res.err, res.out, res.responded)
				}
			} else if !errors.Is(res.err, tt.wantIs) || errors.Is(res.err, errA) || errors.Is(res.err, errExec) {
				t.Errorf("Run() = %v, want b's error only", res.err)
			}
			if res.decided != byName[tt.decided] {
				t.Errorf("DecidedBy() = %q, want %q", res.decided, byName[tt.decided])
			}
			if finallySaw != res.err {
				t.Errorf("finally saw %v, outcome %v", finallySaw, res.err)
			}
		})
	}
}

// Whatever finally hooks do, the outcome (error and output) is the one the
// run had when finally began, on the success path and on the failure path.
func TestFinallyCannotChangeOutcome(t *testing.T) {
	errF := errors.New("finally failed")
	actions := []struct {
		name      string
		fn        flows.HookFunc
		errorLogs int
		warnLogs  int
		recorded  flows.Code // code of the recorded finally error, CodeUnknown for none
	}{
		{"return err", func(c *flows.Context) error { return errF }, 1, 0, flows.CodeAborted},
		{"Abort", func(c *flows.Context) error { c.Abort(errF); return nil }, 1, 0, flows.CodeAborted},
		{"panic", func(c *flows.Context) error { panic("finally exploded") }, 1, 0, flows.CodePanic},
		{"Respond", func(c *flows.Context) error { c.Respond("hijacked"); return nil }, 0, 1, flows.CodeUnknown},
		{"Respond then return err", func(c *flows.Context) error { c.Respond("hijacked"); return errF }, 1, 0, flows.CodeAborted},
		{"Respond then panic", func(c *flows.Context) error { c.Respond("hijacked"); panic("finally exploded") }, 1, 0, flows.CodePanic},
		{"SetOutput", func(c *flows.Context) error { c.SetOutput("hijacked"); return nil }, 0, 0, flows.CodeUnknown},
	}
	paths := []struct {
		name    string
		steps   testSteps
		wantErr error
		wantOut any
	}{
		{"success", testSteps{}, nil, "result"},
		{"failure", testSteps{executeErr: errExec}, errExec, nil},
	}
	for _, path := range paths {
		for _, a := range actions {
			t.Run(path.name+"/"+a.name, func(t *testing.T) {
				s := scope.New("srv")
				var laterSaw []any
				_, err := s.Register(
					flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "bad", Priority: 1, Fn: a.fn},
					flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "later", Fn: func(c *flows.Context) error {
						laterSaw = append(laterSaw, c.Output(), c.Err())
						return nil
					}},
				)
				if err != nil {
					t.Fatal(err)
				}
				logs := &logRecorder{}
				r := flows.NewRunner(&flows.RunnerOptions{Logger: slog.New(logs)})
				steps := path.steps
				steps.rec = &recorder{}
				res := runOne(t, r, context.Background(), s.Plan(flows.ToolsCallTool, nil, nil).Load(), steps)
				if !sameErr(res.err, path.wantErr) || res.out != path.wantOut {
					t.Errorf("outcome = (%v, %v), want (%v, %v)", res.out, res.err, path.wantOut, path.wantErr)
				}
				if len(laterSaw) != 2 || laterSaw[0] != path.wantOut || !sameErr(asErr(laterSaw[1]), path.wantErr) {
					t.Errorf("the next finally hook saw (output, err) = %v; want the unchanged outcome", laterSaw)
				}
				if got := logs.count(slog.LevelError); got != a.errorLogs {
					t.Errorf("%d error logs, want %d", got, a.errorLogs)
				}
				if got := logs.count(slog.LevelWarn); got != a.warnLogs {
					t.Errorf("%d warning logs, want %d", got, a.warnLogs)
				}
				if a.warnLogs > 0 && !strings.Contains(logs.all()[0].msg, "Respond refused in finally") {
					t.Errorf("log = %q", logs.all()[0].msg)
				}
				if a.recorded == flows.CodeUnknown {
					if len(res.finallyErrs) != 0 {
						t.Errorf("FinallyErrors() = %v, want none", res.finallyErrs)
					}
				} else if len(res.finallyErrs) != 1 || flows.CodeOf(res.finallyErrs[0]) != a.recorded {
					t.Errorf("FinallyErrors() = %v, want one %v", res.finallyErrs, a.recorded)
				}
			})
		}
	}
}

// A hook that returns a *flows.Error has it passed on unchanged.
func TestHookErrorPassedOnUnchanged(t *testing.T) {
	mine := &flows.Error{Code: flows.CodeInvalidInput, Msg: "city must not be empty"}
	s := scope.New("srv")
	if _, err := s.Register(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterValidation, Name: "check",
		Fn: func(c *flows.Context) error { return mine }}); err != nil {
		t.Fatal(err)
	}
	res := runOne(t, flows.NewRunner(nil), context.Background(), s.Plan(flows.ToolsCallTool, nil, nil).Load(), testSteps{rec: &recorder{}})
	if res.err != error(mine) {
		t.Errorf("Run() = %#v, want the hook's own *Error", res.err)
	}
	if flows.Reason(res.err) != "city must not be empty" {
		t.Errorf("Reason = %q", flows.Reason(res.err))
	}
}

// A panic with a value that is not an error is still a *PanicError with the
// value, and a Skip or Respond before the panic does not rescue the run.
func TestPanicValues(t *testing.T) {
	tests := []struct {
		name  string
		fn    flows.HookFunc
		value any
	}{
		{"string", func(c *flows.Context) error { panic("boom") }, "boom"},
		{"int", func(c *flows.Context) error { panic(42) }, 42},
		{"after Skip", func(c *flows.Context) error { c.Skip(); panic("boom") }, "boom"},
		{"after Respond", func(c *flows.Context) error { c.Respond("x"); panic("boom") }, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scope.New("srv")
			ids, err := s.Register(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "p", Fn: tt.fn})
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			res := runOne(t, flows.NewRunner(nil), context.Background(), s.Plan(flows.ToolsCallTool, nil, nil).Load(), testSteps{rec: rec})
			var p *flows.PanicError
			if flows.CodeOf(res.err) != flows.CodePanic || !errors.As(res.err, &p) || p.Value != tt.value {
				t.Fatalf("Run() = %v, want a panic with %v", res.err, tt.value)
			}
			if res.decided != ids[0] || rec.String() != "validate" {
				t.Errorf("DecidedBy = %q, trace %q", res.decided, rec)
			}
		})
	}
}

// Hooks see the run's context: flow, entity, input (raw, rewritten, typed),
// arguments (raw, then canonical), request info, logger and the Go context,
// which leads back to the run.
func TestContextAccessors(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "v")
	entity := &flows.Entity{Kind: flows.EntityTool, Name: "weather"}
	req := &flows.Request{ID: "req-1", Method: "tools/call", SessionID: "s-1"}
	s := scope.New("srv")
	var problems []string
	check := func(ok bool, what string) {
		if !ok {
			problems = append(problems, what)
		}
	}
	_, err := s.Register(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "bv", Fn: func(c *flows.Context) error {
			check(c.Flow() == flows.ToolsCallTool, "Flow")
			check(c.Entity() == entity, "Entity")
			check(c.Input() == "raw", "raw Input")
			check(c.Request() == req && c.Request().ID == "req-1", "Request")
			check(c.Session() == nil, "Session")
			check(c.Logger() != nil, "Logger")
			check(string(c.Arguments()) == `{"b":1, "a":2}`, "raw Arguments")
			check(c.Context().Value(key{}) == "v", "Context")
			check(flows.FromContext(c.Context()) == c, "FromContext")
			check(c.Output() == nil && c.Err() == nil && c.DecidedBy() == "" && !c.Responded(), "initial outcome")
			c.SetInput("rewritten")
			return nil
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterValidation, Name: "av", Fn: func(c *flows.Context) error {
			check(c.Input() == "typed", "typed Input")
			check(string(c.Arguments()) == `{"a":2,"b":1}`, "canonical Arguments")
			return nil
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "ae", Fn: func(c *flows.Context) error {
			check(c.Output() == "out:typed", "Output")
			c.SetOutput("rewritten output")
			return nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	r := flows.NewRunner(nil)
	out, err := r.Run(ctx, flows.Run{Flow: flows.ToolsCallTool, Entity: entity, Request: req, Input: "raw",
		Arguments: json.RawMessage(`{"b":1, "a":2}`), Plan: s.Plan(flows.ToolsCallTool, nil, nil).Load(), Steps: stepFuncs{
			validate: func(c *flows.Context) (any, json.RawMessage, error) {
				check(c.Input() == "rewritten", "Input seen by validate")
				return "typed", json.RawMessage(`{"a":2,"b":1}`), nil
			},
			execute: func(c *flows.Context) (any, error) {
				return "out:" + c.Input().(string), nil
			},
		}})
	if err != nil || out != "rewritten output" {
		t.Errorf("Run() = %v, output %v", err, out)
	}
	for _, p := range problems {
		t.Error(p)
	}

	// Without a Request the Context has an empty, non-nil one.
	_, _ = r.Run(context.Background(), flows.Run{Flow: flows.ToolsListTools, Plan: &flows.Plan{Flow: flows.ToolsListTools,
		Stages: [stages.Count][]flows.PlanEntry{stages.BeforeExecute: {{ID: "check", Fn: func(c *flows.Context) error {
			if c.Request() == nil || c.Request().ID != "" || c.Request().Principal() != "" || c.Entity() != nil || c.Arguments() != nil {
				t.Errorf("Request() = %+v, Entity() = %v", c.Request(), c.Entity())
			}
			return nil
		}}}}}})
}

type stepFuncs struct {
	validate func(*flows.Context) (any, json.RawMessage, error)
	execute  func(*flows.Context) (any, error)
}

func (s stepFuncs) Validate(c *flows.Context) (any, json.RawMessage, error) { return s.validate(c) }
func (s stepFuncs) Execute(c *flows.Context) (any, error)                   { return s.execute(c) }

// A nil plan and nil steps are a run with nothing to do.
func TestRunNilPlanAndSteps(t *testing.T) {
	r := flows.NewRunner(nil)
	out, err := r.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Input: "in"})
	if out != nil || err != nil {
		t.Errorf("Run = %v, %v", out, err)
	}
	var p *flows.Plan
	if p.Len() != 0 || p.Hooks(stages.BeforeExecute) != nil {
		t.Error("a nil *Plan is not empty")
	}
	if (&flows.Plan{}).Hooks(stages.Stage(7)) != nil {
		t.Error("Hooks of an invalid stage is not empty")
	}
}

// Run returns the run's output.
func TestRunOutput(t *testing.T) {
	s := scope.New("srv")
	if _, err := s.Register(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "upper", Fn: func(c *flows.Context) error {
		c.SetOutput(strings.ToUpper(c.Output().(string)))
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	plan := s.Plan(flows.ToolsCallTool, nil, nil).Load()
	if plan.Len() != 1 || plan.Flow != flows.ToolsCallTool {
		t.Fatalf("plan = %+v", plan)
	}
	out, err := flows.NewRunner(nil).Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Plan: plan, Steps: testSteps{rec: &recorder{}}})
	if out != "RESULT" || err != nil {
		t.Errorf("Run = %v, %v", out, err)
	}
}

// A hook that gives up because its request was cancelled (it returns the
// context's error) cancels the run; it does not decide it.
func TestRunHookReturnsContextError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	sc := scope.New("srv")
	_, err := sc.Register(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "wait", Fn: func(c *flows.Context) error {
		cancel()
		<-c.Context().Done()
		return c.Context().Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := flows.NewRunner(nil)
	decided := "unset"
	_, err = r.RunInspect(ctx, flows.Run{Flow: flows.ToolsCallTool, Plan: sc.Plan(flows.ToolsCallTool, nil, nil).Load()},
		func(c *flows.Context) { decided = c.DecidedBy() })
	if got := flows.CodeOf(err); got != flows.CodeCanceled {
		t.Errorf("CodeOf(%v) = %v, want canceled", err, got)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run() = %v, want it to wrap context.Canceled", err)
	}
	if decided != "" {
		t.Errorf("DecidedBy() = %q, want no hook", decided)
	}
}

// sameErr reports whether got is want, or an *Error the runner wrapped
// around want (a step's error is wrapped, naming the step).
func sameErr(got, want error) bool {
	if want == nil || got == nil {
		return got == want
	}
	return errors.Is(got, want)
}

func asErr(v any) error {
	err, _ := v.(error)
	return err
}
