package intercept_test

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/internal/proctest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

func forEachKind(t *testing.T, f func(t *testing.T, kind hostKind)) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			f(t, kind)
		})
	}
}

// Two validators of one pass run at the same time: each waits (up to ten
// seconds) for the other to start on the same request and denies when it
// does not, so run one after the other they would block the call.
func TestValidatorsRunInParallel(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		s := newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", "meet-a", "meet-b")}, Timeout: 20 * time.Second})
		for i := range 3 {
			text := fmt.Sprint("call ", i)
			s.echo(text).WantText(plugintest.EchoText(text))
		}
		if got, want := decisions(s.last(t)), "g:meet-a validation request allowed\ng:meet-b validation request allowed"; got != want {
			t.Errorf("decisions:\n%s\nwant\n%s", got, want)
		}
	})
}

// Mutators run in the SEP's order: ascending priority hint, then name,
// then the host's place in Config.Servers; each tag-<x> mutator appends
// "+<x>", so the text shows the order, on the request and on the result.
func TestMutatorOrder(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		tests := []struct {
			name    string
			servers [][]string // each host's interceptors
			policy  []intercept.Policy
			want    string // the order of one pass
		}{
			// Hints: c -10, a 0, b 0 (a before b by name), d 7.
			{"hints then names", [][]string{{"tag-d", "tag-b", "tag-a", "tag-c"}}, nil, "+c+a+b+d"},
			{"policy hint", [][]string{{"tag-d", "tag-b", "tag-a", "tag-c"}},
				[]intercept.Policy{{Interceptor: "tag-d", PriorityHint: wire.Hint(-20)}}, "+d+c+a+b"},
			{"per-phase policy hint", [][]string{{"tag-a", "tag-b"}},
				[]intercept.Policy{{Interceptor: "tag-b", PriorityHint: wire.HintPerPhase(-1, 0)}}, "+b+a|+a+b"},
			// Same hint and name on two hosts: the configured host order.
			{"host order", [][]string{{"tag-b", "tag-a"}, {"tag-a"}}, nil, "+a+a+b"},
		}
		for _, tt := range tests {
			var servers []intercept.Server
			for i, serve := range tt.servers {
				servers = append(servers, startHost(t, kind, fmt.Sprint("h", i), serve...))
			}
			s := newSetup(t, intercept.Config{Servers: servers, Policy: tt.policy})
			req, resp, _ := strings.Cut(tt.want, "|")
			if resp == "" {
				resp = req
			}
			s.echo("x").WantText(plugintest.EchoText("x" + req + resp))
		}
	})
}

// A pass of mutators is atomic: the run's input (on the request) or output
// (on the result) is replaced once, after the pass's last mutator. When a
// mutator fails closed the run is blocked and carries its payload as it
// was before the pass; when every mutator succeeds, the tool, then the
// client, get all the changes, in priorityHint order. The probe tool
// records the arguments it is called with, and a finally hook the input
// and output the run carries at its end. tag-<x> appends "+<x>" (hints:
// c -10, a 0, b 0, d 7); fail (hint 50) fails.
func TestMutationPassIsAtomic(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		open := true
		onResponse := []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Response}}
		tests := []struct {
			name      string
			serve     []string
			policy    []intercept.Policy
			blocked   string // the start of the tool error the client reads; "" when the call goes through
			decidedBy string // the hook that blocked
			decisions string
			tool      []string // the arguments' text of each call the tool got
			input     string   // the run's input at its end
			output    string   // the run's output at its end ("" for none)
		}{
			{name: "request pass fails closed", serve: []string{"tag-a", "tag-d", "fail"},
				blocked: "the request was blocked: an interceptor failed", decidedBy: hookID("beforeExecute", "g:fail"),
				decisions: "g:tag-a mutation request modified\ng:tag-d mutation request modified\ng:fail mutation request failed_closed",
				input:     "x"},
			{name: "result pass fails closed", serve: []string{"tag-a", "tag-d", "fail"},
				policy:  []intercept.Policy{{Interceptor: "fail", Hooks: onResponse}},
				blocked: "the result was blocked: an interceptor failed", decidedBy: hookID("afterExecute", "g:fail"),
				decisions: "g:tag-a mutation request modified\ng:tag-d mutation request modified\n" +
					"g:tag-a mutation response modified\ng:tag-d mutation response modified\ng:fail mutation response failed_closed",
				tool: []string{"x+a+d"}, input: "x+a+d", output: "x+a+d"},
			{name: "failing open, the pass goes on without it", serve: []string{"tag-a", "fail", "tag-d"},
				policy: []intercept.Policy{{Interceptor: "fail", FailOpen: &open}},
				decisions: "g:tag-a mutation request modified\ng:tag-d mutation request modified\ng:fail mutation request failed_open\n" +
					"g:tag-a mutation response modified\ng:tag-d mutation response modified\ng:fail mutation response failed_open",
				tool: []string{"x+a+d"}, input: "x+a+d", output: "x+a+d+a+d"},
			{name: "all succeed", serve: []string{"tag-d", "tag-b", "tag-a", "tag-c"},
				decisions: "g:tag-c mutation request modified\ng:tag-a mutation request modified\ng:tag-b mutation request modified\ng:tag-d mutation request modified\n" +
					"g:tag-c mutation response modified\ng:tag-a mutation response modified\ng:tag-b mutation response modified\ng:tag-d mutation response modified",
				tool: []string{"x+c+a+b+d"}, input: "x+c+a+b+d", output: "x+c+a+b+d+c+a+b+d"},
		}
		for _, tt := range tests {
			s, pr := newProbedSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", tt.serve...)}, Policy: tt.policy})
			r := s.h.Call(toolProbe, plugintest.Text{Text: "x"})
			if tt.blocked != "" {
				r.WantToolError(tt.blocked)
			} else {
				r.WantText(plugintest.EchoText(tt.output))
			}
			ev := s.last(t)
			if ev.DecidedBy != tt.decidedBy {
				t.Errorf("%s: decided by %q, want %q", tt.name, ev.DecidedBy, tt.decidedBy)
			}
			if got := decisions(ev); got != tt.decisions {
				t.Errorf("%s: decisions:\n%s\nwant\n%s", tt.name, got, tt.decisions)
			}
			tool, runs := pr.take()
			if !slices.Equal(tool, tt.tool) {
				t.Errorf("%s: the tool was called with %q, want %q", tt.name, tool, tt.tool)
			}
			if len(runs) != 1 {
				t.Errorf("%s: the probe saw %d runs end, want 1", tt.name, len(runs))
				continue
			}
			if runs[0].input != tt.input {
				t.Errorf("%s: the run ended with input %q, want %q", tt.name, runs[0].input, tt.input)
			}
			if runs[0].output != tt.output {
				t.Errorf("%s: the run ended with output %q, want %q", tt.name, runs[0].output, tt.output)
			}
		}
	})
}

// Audit mode never blocks and never changes the payload; the shadow result
// is recorded. A policy can put an interceptor in audit mode, or take it
// out.
func TestAuditMode(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		tests := []struct {
			name      string
			serve     []string
			policy    []intercept.Policy
			text      string // what the client reads
			blocked   bool
			decisions string
		}{
			{"declared audit validator", []string{"audit-deny"}, nil, "hi", false, "g:audit-deny validation request audited"},
			{"policy audit validator", []string{"deny"}, []intercept.Policy{{Interceptor: "deny", Mode: wire.Audit}}, "hi", false,
				"g:deny validation request audited"},
			{"shadow mutation", []string{"audit-upper"}, nil, "hi", false,
				"g:audit-upper mutation request audited\ng:audit-upper mutation response audited"},
			{"policy makes it active", []string{"audit-deny"}, []intercept.Policy{{Interceptor: "audit-deny", Mode: wire.Active}}, "", true,
				"g:audit-deny validation request blocked"},
		}
		for _, tt := range tests {
			s := newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", tt.serve...)}, Policy: tt.policy})
			if tt.blocked {
				s.echo("hi").WantToolError("the request was blocked by an interceptor")
			} else {
				s.echo("hi").WantText(plugintest.EchoText(tt.text))
			}
			ev := s.last(t)
			if got := decisions(ev); got != tt.decisions {
				t.Errorf("%s: decisions:\n%s\nwant\n%s", tt.name, got, tt.decisions)
			}
			if !tt.blocked {
				for _, d := range ev.Decisions {
					if !strings.HasPrefix(d.Reason, "would ") {
						t.Errorf("%s: the shadow result is not recorded: %+v", tt.name, d)
					}
				}
			}
		}
	})
}

// A crash, a timeout and a bad answer are failures: by default they block
// (fail closed); with failOpen the call goes on. The run's DecidedBy names
// the interceptor.
func TestFailuresFollowFailOpen(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		tests := []struct {
			name   string
			serve  string
			policy intercept.Policy
			hook   string
		}{
			{"crash", "crash", intercept.Policy{Interceptor: "crash"}, "beforeExecute"},
			{"crash mid-pass", "crash-mutator", intercept.Policy{Interceptor: "crash-mutator"}, "beforeExecute"},
			{"timeout", "sleep", intercept.Policy{Interceptor: "sleep", Timeout: 300 * time.Millisecond}, "beforeExecute"},
			{"bad answer", "rename", intercept.Policy{Interceptor: "rename"}, "beforeExecute"},
		}
		for _, tt := range tests {
			for _, open := range []bool{false, true} {
				p := tt.policy
				p.FailOpen = &open
				s := newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", tt.serve)},
					Policy: []intercept.Policy{p}, RetryAfter: time.Millisecond})
				id := "g:" + tt.serve
				if open {
					s.echo("hi").WantText(plugintest.EchoText("hi"))
					ev := s.last(t)
					if len(ev.Decisions) == 0 || ev.Decisions[0].Outcome != "failed_open" || ev.DecidedBy != "" {
						t.Errorf("%s, fail-open: decided by %q, decisions %+v", tt.name, ev.DecidedBy, ev.Decisions)
					}
					continue
				}
				s.echo("hi").WantToolError("the request was blocked: an interceptor failed")
				ev := s.last(t)
				if ev.DecidedBy != hookID(tt.hook, id) || ev.Outcome != audit.Blocked {
					t.Errorf("%s, fail-closed: outcome %s decided by %q", tt.name, ev.Outcome, ev.DecidedBy)
				}
				if len(ev.Decisions) == 0 || ev.Decisions[0].Outcome != "failed_closed" || ev.Decisions[0].Reason == "" {
					t.Errorf("%s, fail-closed: decisions %+v", tt.name, ev.Decisions)
				}
			}
		}
	})
}

// Only severity error blocks; a result-phase validator blocks the result.
func TestValidationSeverities(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		s := newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", "warn", "deny-results")}, Explain: true})
		s.echo("fine").WantText(plugintest.EchoText("fine"))
		if got, want := decisions(s.last(t)), "g:warn validation request warned\ng:deny-results validation response allowed"; got != want {
			t.Errorf("decisions:\n%s\nwant\n%s", got, want)
		}
		s.echo("SECRET").WantToolError("the result was blocked by an interceptor (g:deny-results): the result holds a secret")
		if ev := s.last(t); ev.DecidedBy != hookID("afterExecute", "g:deny-results") {
			t.Errorf("decided by %q", ev.DecidedBy)
		}
		s = newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", "deny")}})
		r := s.echo("hi").WantToolError("the request was blocked by an interceptor")
		if strings.Contains(r.Text(), "denied by policy") {
			t.Errorf("without Explain the client read the validator's message: %s", r.Text())
		}
	})
}

// The shared checks of plugintest: hooks owned by the plugin's scope, the
// run contract kept, concurrent calls, and attached to an app, hooks for
// that app's tools only. The host runs a validator and a mutator that
// leave every payload as it is.
func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(t testing.TB) framework.Plugin {
		p := intercept.New(intercept.Config{Servers: []intercept.Server{startHost(t, overStdio, "g", "allow", "audit-upper")}})
		t.Cleanup(func() { _ = p.Close() })
		return p
	}, nil)
}

// A host that restarts between two calls loses the invoker's session: the
// second call's invocation fails with it, and is sent once more on a new
// session, so the call goes through (fail-closed: before, it was blocked).
func TestHostRestart(t *testing.T) {
	args := []string{"-serve", "allow", "-token", hostToken}
	addr, cmd := runHTTPHost(t, "127.0.0.1:0", args...)
	s := newSetup(t, intercept.Config{Servers: []intercept.Server{{Name: "g", URL: "http://" + addr, Token: hostToken}}})
	s.echo("before").WantText(plugintest.EchoText("before"))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	runHTTPHost(t, addr, args...)
	s.echo("after").WantText(plugintest.EchoText("after"))
	if got, want := decisions(s.last(t)), "g:allow validation request allowed\ng:allow validation response allowed"; got != want {
		t.Errorf("decisions after the restart:\n%s\nwant\n%s", got, want)
	}
}

// A host that stops answering at all (its process is stopped) fails its
// first invocation at the interceptor's timeout; the next ones fail at
// once, without waiting for it (a blocked call costs no timeout while the
// host is stalled); once the process runs again, a probe finds it
// answering, and calls go through.
func TestStalledHostFailsFast(t *testing.T) {
	const timeout = 2 * time.Second
	args := []string{"-serve", "allow", "-token", hostToken}
	addr, cmd := runHTTPHost(t, "127.0.0.1:0", args...)
	s := newSetup(t, intercept.Config{Servers: []intercept.Server{{Name: "g", URL: "http://" + addr, Token: hostToken}},
		Timeout: timeout, RetryAfter: 50 * time.Millisecond, ConnectTimeout: time.Minute})
	s.echo("up").WantText(plugintest.EchoText("up"))
	if err := proctest.Stop(cmd.Process.Pid, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	defer resume()

	s.echo("first").WantToolError("the request was blocked: an interceptor failed")
	if d := s.last(t).Decisions; len(d) == 0 || d[0].Duration < timeout {
		t.Fatalf("first call while stopped: decisions %+v, want one that waited for the timeout", d)
	}
	s.echo("second").WantToolError("the request was blocked: an interceptor failed")
	d := s.last(t).Decisions
	// Without the stall the invocation would wait for the timeout again:
	// its duration could not be below it.
	if len(d) == 0 || d[0].Duration >= timeout || !strings.Contains(d[0].Reason, "fail at once until it answers again") {
		t.Fatalf("second call while stopped: decisions %+v, want one failed at once", d)
	}

	resume()
	deadline := time.Now().Add(time.Minute) // a bound on a hang, not a timing assertion
	for {
		r := s.echo("again")
		if r.Err == nil && !r.Res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("calls still fail a minute after the host runs again: %v %+v", r.Err, r.Res)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
