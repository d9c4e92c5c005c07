package intercept_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
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

// A pass of mutators is atomic: when one fails closed, the run is blocked
// and nothing of the pass reaches the tool or the client.
func TestMutationPassIsAtomic(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind hostKind) {
		onResponse := []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Response}}
		// On the request: tag-a (hint 0) changes the text, then fail (hint
		// 50) fails: the tool never runs.
		s := newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", "tag-a", "fail")}})
		s.echo("x").WantToolError("the request was blocked: an interceptor failed, and its policy blocks on failure")
		ev := s.last(t)
		if ev.DecidedBy != hookID("beforeExecute", "g:fail") || string(ev.Args) != `{"text":"x"}` {
			t.Errorf("decided by %q, args %s", ev.DecidedBy, ev.Args)
		}
		if got, want := decisions(ev), "g:tag-a mutation request modified\ng:fail mutation request failed_closed"; got != want {
			t.Errorf("decisions:\n%s\nwant\n%s", got, want)
		}
		// On the result: tag-a's change is discarded with the result.
		s = newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", "tag-a", "fail")},
			Policy: []intercept.Policy{{Interceptor: "fail", Hooks: onResponse}}})
		r := s.echo("x").WantToolError("the result was blocked")
		if strings.Contains(r.Text(), "x+a") {
			t.Errorf("the client saw a partly mutated result: %s", r.Text())
		}
		if ev := s.last(t); ev.DecidedBy != hookID("afterExecute", "g:fail") {
			t.Errorf("decided by %q", ev.DecidedBy)
		}
		// Failing open, the pass goes on without the failed mutator.
		open := true
		s = newSetup(t, intercept.Config{Servers: []intercept.Server{startHost(t, kind, "g", "tag-a", "fail", "tag-d")},
			Policy: []intercept.Policy{{Interceptor: "fail", FailOpen: &open}}})
		s.echo("x").WantText(plugintest.EchoText("x+a+d+a+d"))
		if got, want := decisions(s.last(t)), "g:tag-a mutation request modified\ng:tag-d mutation request modified\ng:fail mutation request failed_open\n"+
			"g:tag-a mutation response modified\ng:tag-d mutation response modified\ng:fail mutation response failed_open"; got != want {
			t.Errorf("decisions:\n%s\nwant\n%s", got, want)
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
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
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
