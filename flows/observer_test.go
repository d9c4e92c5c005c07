package flows_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// eventLog is an Observer that keeps a copy of every event (the *Event is
// valid only during the call).
type eventLog struct{ events []flows.Event }

func (l *eventLog) observe(ev *flows.Event) { l.events = append(l.events, *ev) }

// String renders the events as "stage:hook-or-step:outcome[!]" where "!"
// marks an event with an error.
func (l *eventLog) String() string {
	var parts []string
	for _, ev := range l.events {
		who := ev.Hook
		if i := strings.LastIndex(who, "/"); i >= 0 {
			who = who[i+1:]
		}
		if ev.Step != "" {
			who = ev.Step
		}
		p := fmt.Sprintf("%s:%s:%s", ev.Stage, who, ev.Outcome)
		if ev.Err != nil {
			p += "!"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func TestObserverEvents(t *testing.T) {
	h := func(st stages.Stage, name string, prio int, fn flows.HookFunc) flows.Hook {
		return flows.Hook{Flow: flows.ToolsCallTool, Stage: st, Name: name, Priority: prio, Fn: fn}
	}
	ok := func(*flows.Context) error { return nil }
	tests := []struct {
		name     string
		hooks    []flows.Hook
		steps    testSteps
		canceled bool
		want     string
	}{
		{
			name: "success",
			hooks: []flows.Hook{
				h(stages.BeforeValidation, "a", 0, ok),
				h(stages.AfterExecute, "b", 0, ok),
				h(stages.Finally, "c", 0, ok),
			},
			want: "beforeValidation:a:ok beforeValidation:validate:ok beforeExecute:execute:ok afterExecute:b:ok finally:c:ok",
		},
		{
			name: "skip, abort, recover, finally error and refusal",
			hooks: []flows.Hook{
				h(stages.BeforeValidation, "a", 2, ok),
				h(stages.BeforeValidation, "skip", 1, func(c *flows.Context) error { c.Skip(); return nil }),
				h(stages.BeforeValidation, "skipped", 0, ok),
				h(stages.AfterValidation, "abort", 0, func(c *flows.Context) error { return c.Abort(errHook) }),
				h(stages.OnError, "note", 1, ok),
				h(stages.OnError, "recover", 0, func(c *flows.Context) error { c.Respond("x"); return nil }),
				h(stages.Finally, "fails", 1, func(c *flows.Context) error { return errHook }),
				h(stages.Finally, "responds", 0, func(c *flows.Context) error { c.Respond("y"); return nil }),
			},
			want: "beforeValidation:a:ok beforeValidation:skip:skip beforeValidation:validate:ok afterValidation:abort:abort! " +
				"onError:note:ok onError:recover:respond finally:fails:error! finally:responds:refused",
		},
		{
			name: "respond early",
			hooks: []flows.Hook{
				h(stages.BeforeExecute, "cache", 0, func(c *flows.Context) error { c.Respond("cached"); return nil }),
				h(stages.AfterExecute, "after", 0, ok),
			},
			want: "beforeValidation:validate:ok beforeExecute:cache:respond afterExecute:after:ok",
		},
		{
			name: "hook panics",
			hooks: []flows.Hook{
				h(stages.BeforeExecute, "boom", 0, func(c *flows.Context) error { panic("boom") }),
				h(stages.OnError, "oe", 0, func(c *flows.Context) error { panic("again") }),
				h(stages.Finally, "f", 0, func(c *flows.Context) error { panic("and again") }),
			},
			want: "beforeValidation:validate:ok beforeExecute:boom:panic! onError:oe:panic! finally:f:error!",
		},
		{
			name:  "execute fails",
			hooks: []flows.Hook{h(stages.OnError, "oe", 0, func(c *flows.Context) error { return errors.New("replaced") })},
			steps: testSteps{executeErr: errExec},
			want:  "beforeValidation:validate:ok beforeExecute:execute:error! onError:oe:abort!",
		},
		{
			name:  "validate panics",
			hooks: []flows.Hook{h(stages.AfterValidation, "av", 0, ok)},
			steps: testSteps{validatePanic: "bad"},
			want:  "beforeValidation:validate:panic!",
		},
		{
			name:     "canceled",
			hooks:    []flows.Hook{h(stages.BeforeValidation, "bv", 0, ok), h(stages.Finally, "f", 0, ok)},
			canceled: true,
			want:     "beforeValidation:bv:canceled! finally:f:ok",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scope.New("srv")
			if _, err := s.Register(tt.hooks...); err != nil {
				t.Fatal(err)
			}
			log := &eventLog{}
			r := flows.NewRunner(&flows.RunnerOptions{Observer: log.observe})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.canceled {
				cancel()
			}
			tt.steps.rec = &recorder{}
			runOne(t, r, ctx, s.Plan(flows.ToolsCallTool, nil, nil).Load(), tt.steps)
			if got := log.String(); got != tt.want {
				t.Errorf("events:\n got %s\nwant %s", got, tt.want)
			}
			for _, ev := range log.events {
				if ev.Flow != flows.ToolsCallTool {
					t.Errorf("event %+v has the wrong flow", ev)
				}
				if (ev.Hook == "") == (ev.Step == "") {
					t.Errorf("event %+v must name a hook or a step", ev)
				}
				if ev.Hook != "" && !strings.HasPrefix(ev.Hook, "srv/tools:call-tool/"+ev.Stage.String()+"/") {
					t.Errorf("event hook %q is not a hook ID of stage %v", ev.Hook, ev.Stage)
				}
			}
		})
	}
}
