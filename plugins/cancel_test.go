package plugins_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// waitingBackend is a backend that waits (like a slow Redis) until the
// decision's context is done.
type waitingBackend struct{ entered chan struct{} }

func (b waitingBackend) Take(ctx context.Context, _ []ratelimit.Bucket) (ratelimit.Decision, error) {
	b.entered <- struct{}{}
	<-ctx.Done()
	return ratelimit.Decision{}, ctx.Err()
}

// A client that cancels its call while the rate limiter waits for its
// backend: the run was cancelled, so the audit event says "error" and names
// no deciding hook (the rate limiter did not block it).
func TestCancelledCallIsNotAuditedAsBlocked(t *testing.T) {
	sink := &recorder{}
	aud := audit.New(audit.Config{Handler: sink})
	t.Cleanup(func() { _ = aud.Close(context.Background()) })
	be := waitingBackend{entered: make(chan struct{}, 1)}
	rl := ratelimit.New(ratelimit.Config{PerTool: ratelimit.Limit{Rate: 1, Burst: 10}, Backend: be, Timeout: time.Minute})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{rl, aud}, Server: &framework.Options{Logger: slog.New(slog.DiscardHandler)}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-be.entered; cancel() }()
	h.Session().CallContext(ctx, plugintest.ToolEcho, plugintest.Text{Text: "hi"})
	// The server's run ends after the client gave up: wait for its event.
	deadline, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	for {
		_ = aud.Flush(deadline)
		for _, ev := range sink.events() {
			if ev.flow == "tools:call-tool" {
				if ev.outcome != string(audit.Failed) {
					t.Fatalf("a cancelled call is audited as %s, decided by %q, error %q; want outcome %q (a cancellation, not the rate limiter's decision)", ev.outcome, ev.decidedBy, ev.err, audit.Failed)
				}
				return
			}
		}
		if deadline.Err() != nil {
			t.Fatal("no event")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
