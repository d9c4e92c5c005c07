package streamable

import (
	"fmt"
	"strings"
	"testing"
)

// TestParamToolsBound sends a listing of more annotated tools than a
// connection keeps: it keeps maxParamTools, and a later listing still
// updates (or drops) the ones it holds.
func TestParamToolsBound(t *testing.T) {
	tool := func(name string, annotated bool) string {
		h := ""
		if annotated {
			h = `,"x-mcp-header":"R"`
		}
		return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{"r":{"type":"string"%s}}}}`, name, h)
	}
	var tools []string
	for i := range maxParamTools + 100 {
		tools = append(tools, tool(fmt.Sprint("t", i), true))
	}
	c := &clientConn{}
	c.noteParamTools([]byte(`{"tools":[` + strings.Join(tools, ",") + `]}`))
	if len(c.paramTools) != maxParamTools {
		t.Fatalf("kept %d tools, want %d", len(c.paramTools), maxParamTools)
	}
	c.noteParamTools([]byte(`{"tools":[` + tool("t0", false) + `]}`))
	if _, ok := c.paramTools["t0"]; ok || len(c.paramTools) != maxParamTools-1 {
		t.Errorf("a tool listed again without annotations is still kept (%d kept)", len(c.paramTools))
	}
}
