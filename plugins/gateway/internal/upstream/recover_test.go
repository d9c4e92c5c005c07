package upstream_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// TestGoRecovers: a panic on a goroutine the gateway starts is logged
// with what it was doing, and the process goes on.
func TestGoRecovers(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	done := make(chan struct{})
	upstream.Go(log, "testing", func() {
		defer close(done)
		var m map[string]int
		m["x"] = 1 // panics
	})
	<-done
	for {
		mu.Lock()
		out := buf.String()
		mu.Unlock()
		if strings.Contains(out, "recovered from a panic") {
			if !strings.Contains(out, "in=testing") || !strings.Contains(out, "assignment to entry in nil map") {
				t.Errorf("log = %s", out)
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
