package plugintest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
)

// TestSetupSeesApps is Options.Setup used as its doc says, to add a tool
// to one of the harness's apps: the closure reads the harness New returns.
func TestSetupSeesApps(t *testing.T) {
	var h *plugintest.Harness
	h = plugintest.New(t, &plugintest.Options{
		Apps: []plugintest.AppOptions{{Name: "billing"}},
		Setup: func(s *framework.Server) error {
			return framework.AddToolFunc(h.App("billing"), &mcp.Tool{Name: "invoice"},
				func(context.Context, *mcp.CallToolRequest, plugintest.Text) (plugintest.Text, error) {
					return plugintest.Text{Text: "invoiced"}, nil
				})
		},
	})
	h.Call("invoice", plugintest.Text{}).WantText(plugintest.EchoText("invoiced"))
}

func TestSetupErrorIsStarts(t *testing.T) {
	h := plugintest.New(t, &plugintest.Options{Setup: func(*framework.Server) error { return errors.New("no provider") }})
	if err := h.Start(); err == nil || !strings.Contains(err.Error(), "no provider") {
		t.Errorf("Start = %v, want the Setup error", err)
	}
}
