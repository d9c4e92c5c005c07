package framework_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

type nullIn struct {
	B    string   `json:"b"`
	List []string `json:"list"`
}

// TestValidationSaysNull checks that a null argument is named "null" in the
// text the model reads, not after a Go value.
func TestValidationSaysNull(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "null", Version: "1"}, nil)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "t"}, func(ctx context.Context, req *mcp.CallToolRequest, in nullIn) (echoOut, error) {
		return echoOut{Echo: in.B}, nil
	}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	tests := []struct {
		args any
		want string
	}{
		{map[string]any{"b": nil}, `null has type "null"`},
		{map[string]any{"list": []any{"x", nil}}, `/properties/list/items: type: null has type "null"`},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		got := textOf(t, res)
		if !res.IsError || !strings.Contains(got, tt.want) || strings.Contains(got, "reflect") || strings.Contains(got, "<nil>") {
			t.Errorf("args %v: isError=%v text %q; want it to contain %q and no Go internals", tt.args, res.IsError, got, tt.want)
		}
	}
}
