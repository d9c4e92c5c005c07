package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools that must be called as tasks (execution.taskSupport "required")
// are left out: the MCP SDK the gateway is built on cannot make a
// task-augmented call, and its Tool does not even say that a tool needs
// one, so the gateway reads it from the upstream's tools/list results
// as they arrive (conn.Incoming).

// taskTools returns the names of the tools of a tools/list result that
// must be called as tasks (execution.taskSupport "required"): the MCP
// SDK's Tool does not say so, and the gateway cannot call them.
func taskTools(result []byte) []string {
	if !bytes.Contains(result, []byte(`"taskSupport"`)) {
		return nil
	}
	var r struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	var names []string
	for _, t := range r.Tools {
		if t.Execution != nil && t.Execution.TaskSupport == "required" {
			names = append(names, t.Name)
		}
	}
	return names
}

// noteTaskTools records tools the upstream said must be called as tasks.
func (c *conn) noteTaskTools(names []string) {
	if len(names) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.taskTools == nil {
		c.taskTools = map[string]bool{}
	}
	for _, n := range names {
		c.taskTools[n] = true
	}
}

// list lists what the upstream session serves, through the upstream's
// tool filters (AllowTools, DenyTools), and without the tools that must
// be called as tasks: the MCP SDK, and so the gateway, cannot make a
// task-augmented call, and a client would see a tool it cannot call.
// Each is logged once per upstream.
func (c *conn) list(ctx context.Context) (listing, error) {
	l, err := list(ctx, c.CS)
	if err != nil {
		return l, err
	}
	l = c.u.filter(l)
	c.mu.Lock()
	tasks := c.taskTools
	c.mu.Unlock()
	if len(tasks) == 0 {
		return l, nil
	}
	l.tools = slices.DeleteFunc(slices.Clone(l.tools), func(t *mcp.Tool) bool {
		if !tasks[t.Name] {
			return false
		}
		if _, logged := c.u.taskLogged.LoadOrStore(t.Name, true); !logged {
			c.u.log.Info("gateway: an upstream tool must be called as a task, which the gateway cannot do: not mounted", slog.String("tool", t.Name))
		}
		return true
	})
	return l, nil
}
