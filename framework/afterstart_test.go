package framework_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

type noIn struct{}
type noOut struct{}

func nothing(context.Context, *mcp.CallToolRequest, noIn) (noOut, error) { return noOut{}, nil }

// TestAfterStart: a plugin's AfterStart checks see every tool, those added
// after the plugin attached and those another plugin's Attach adds, and
// their errors fail Start, named after the plugin.
func TestAfterStart(t *testing.T) {
	tests := []struct {
		name string
		want string // tool the check requires
		err  string // "" for success
	}{
		{name: "tool added before Start", want: "early"},
		{name: "tool added by a later plugin's Attach", want: "from-plugin"},
		{name: "tool of an app", want: "in-app"},
		{name: "missing tool", want: "nope", err: `plugin "checker" (srv/plugin:checker): no tool "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, nil)
			var order []string
			checker := framework.NewPlugin("checker", func(pc *framework.PluginContext) error {
				pc.AfterStart(func() error {
					order = append(order, "first")
					if _, ok := pc.Server.Tool(tt.want); !ok {
						return fmt.Errorf("no tool %q", tt.want)
					}
					return nil
				})
				pc.AfterStart(func() error {
					order = append(order, "second")
					return nil
				})
				return nil
			})
			adder := framework.NewPlugin("adder", func(pc *framework.PluginContext) error {
				return framework.AddToolFunc(pc.Server, &mcp.Tool{Name: "from-plugin"}, nothing)
			})
			if err := srv.Use(checker, adder); err != nil {
				t.Fatal(err)
			}
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "early"}, nothing); err != nil {
				t.Fatal(err)
			}
			app, err := srv.App("app")
			if err != nil {
				t.Fatal(err)
			}
			if err := framework.AddToolFunc(app, &mcp.Tool{Name: "in-app"}, nothing); err != nil {
				t.Fatal(err)
			}
			err = srv.Start()
			if strings.Join(order, ",") != "first,second" {
				t.Errorf("checks ran %v, want first,second", order)
			}
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				return
			}
			var fe *flows.Error
			if !errors.As(err, &fe) || fe.Code != flows.CodeInvalid || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Start = %v, want a CodeInvalid error containing %q", err, tt.err)
			}
			if again := srv.Start(); again == nil || again.Error() != err.Error() {
				t.Errorf("second Start = %v, want the same error", again)
			}
		})
	}
}
