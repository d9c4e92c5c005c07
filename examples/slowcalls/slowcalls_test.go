package slowcalls_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/examples/slowcalls"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
)

// The shared checks: hooks owned by the plugin's scope; the run contract
// kept (outputs, isError, protocol errors, finally exactly once); 100
// concurrent calls over 4 sessions; attached to an app, its hooks run for
// that app's tools only; no panic's message reaches a client. (A plugin
// that blocks calls lists some in RunOptions.Blocked.) Run with -race.
func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin { return slowcalls.New(slowcalls.Config{}) }, nil)
}

func TestReportsSlowCalls(t *testing.T) {
	var mu sync.Mutex
	var reported []string
	p := slowcalls.New(slowcalls.Config{Threshold: time.Nanosecond, Report: func(tool string, _ time.Duration) {
		mu.Lock()
		reported = append(reported, tool)
		mu.Unlock()
	}})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "hi"}).WantText(plugintest.EchoText("hi"))
	h.Call(plugintest.ToolFail, plugintest.Text{Text: "x"}).WantToolError("fail: x")
	h.Call("nope", nil).WantProtocolError(-32602)

	mu.Lock()
	defer mu.Unlock()
	if strings.Join(reported, ",") != "echo,fail" {
		t.Errorf("reported %v", reported)
	}
}

func TestBadConfig(t *testing.T) {
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{slowcalls.New(slowcalls.Config{Threshold: -1})}})
	if err := h.Start(); err == nil || !strings.Contains(err.Error(), "Config.Threshold") {
		t.Fatalf("Start() = %v", err)
	}
}
