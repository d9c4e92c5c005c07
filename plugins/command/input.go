package command

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// eventData is what the hooks of one event in one run read: the event's
// fields, into which each OLLM hook's data and each argument rewrite are
// merged for the hooks that follow.
type eventData struct {
	event  settings.Event
	fields map[string]json.RawMessage
	// tool is the server's name of the tool, for tool events.
	tool string
}

var dataKey = flows.NewKey[*eventData]("command.data")

// data returns the run's fields for event e, built on its first hook.
func (p *Plugin) data(c *flows.Context, e settings.Event, subject string) *eventData {
	if d, ok := dataKey.Get(c); ok && d.event == e {
		return d
	}
	d := &eventData{event: e, fields: p.fields(c, e, subject)}
	if ent := c.Entity(); ent != nil && ent.Kind == flows.EntityTool {
		d.tool = ent.Name
	}
	dataKey.Set(c, d)
	return d
}

// fields builds an event's input as the agents send it, every field
// their references document for the event, with a documented value for
// what a server does not have (see sessionRef, and the guide's "The
// contract"), plus hookflow's own fields: flow, stage, server, principal,
// request_id and, for SessionStart, client.
func (p *Plugin) fields(c *flows.Context, e settings.Event, subject string) map[string]json.RawMessage {
	f := map[string]json.RawMessage{}
	set := func(k string, v any) {
		if b, err := json.Marshal(v); err == nil {
			f[k] = b
		}
	}
	r := c.Request()
	set("cwd", p.cfg.Dir)
	set("session_id", p.sessionRef(r))
	// A server keeps no transcript, and has no permission modes: the
	// agents' default mode is the one its calls run in.
	set("transcript_path", "")
	set("permission_mode", "default")
	// Gemini CLI's: when the event happened.
	set("timestamp", time.Now().UTC().Format(time.RFC3339Nano))
	set("flow", c.Flow().String())
	set("stage", c.Stage().String())
	if p.cfg.ServerName != "" {
		set("server", p.cfg.ServerName)
	}
	if pr := r.Principal(); pr != "" {
		set("principal", pr)
	}
	if r.ID != "" {
		set("request_id", r.ID)
	}
	switch e {
	case settings.PreToolUse, settings.PostToolUse, settings.PostToolUseFailure:
		set("tool_name", subject)
		// One call's hooks, before and after, read the same ID.
		set("tool_use_id", r.ID)
		args := c.Arguments()
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		f["tool_input"] = args
		switch e {
		case settings.PostToolUse:
			if b, err := toolResponse(c.Output()); err == nil {
				f["tool_response"] = b
			}
		case settings.PostToolUseFailure:
			set("error", flows.Reason(c.Err()))
			set("is_interrupt", flows.CodeOf(c.Err()) == flows.CodeCanceled)
		}
	case settings.SessionStart:
		set("source", "startup")
		if ci := r.ClientInfo; ci != nil {
			set("client", map[string]string{"name": ci.Name, "version": ci.Version})
		}
	case settings.UserPromptSubmit:
		set("prompt_name", subject)
		var args map[string]string
		if pg := (flows.PromptGet{Context: c}); pg.Params() != nil && pg.Params().Arguments != nil {
			args = pg.Params().Arguments
			set("prompt_arguments", args)
		}
		set("prompt", p.promptText(subject, args))
	case settings.PreReadResource, settings.PostReadResource:
		set("resource_uri", subject)
		if e == settings.PostReadResource {
			if res := (flows.ResourceRead{Context: c}).Result(); res != nil {
				set("resource_contents", res.Contents)
			}
		}
	}
	return f
}

// toolResponse returns a tool's output as the client reads it: a whole
// result as it is; a typed output as its JSON text and structuredContent.
func toolResponse(out any) (json.RawMessage, error) {
	if res, ok := out.(*mcp.CallToolResult); ok {
		if res == nil {
			return json.RawMessage(`{"content":[]}`), nil
		}
		return json.Marshal(res)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	resp := map[string]any{"content": []any{map[string]string{"type": "text", "text": string(b)}}}
	if len(b) > 0 && b[0] == '{' {
		resp["structuredContent"] = json.RawMessage(b)
	}
	return json.Marshal(resp)
}

// stdin encodes what hook h reads on stdin. The fields are valid JSON
// already (encoded by hookflow, or the validated arguments): they are
// copied as they are, in key order, not scanned again.
func (h *hook) stdin(d *eventData) ([]byte, error) {
	if h.Protocol == settings.Copilot {
		return h.copilotStdin(d)
	}
	name, _ := json.Marshal(h.Key)
	d.fields["hook_event_name"] = name
	fields := d.fields
	if tn, ok := h.tools.name(d.tool); ok {
		// This hook's script knows the tool by another name.
		fields = maps.Clone(fields)
		fields["tool_name"], _ = json.Marshal(tn)
		if in, ok := fields["tool_input"]; ok {
			fields["tool_input"] = h.tools.input(d.tool, in)
		}
	}
	keys := slices.Sorted(maps.Keys(fields))
	size := 64
	for k, v := range fields {
		size += len(k) + len(v) + 4
	}
	b := make([]byte, 0, size)
	if h.Protocol == settings.OLLM {
		ev, _ := json.Marshal(h.Event.OLLMName())
		b = append(append(append(b, `{"event":`...), ev...), `,"data":`...)
	}
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		q, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, q...), ':'), fields[k]...)
	}
	b = append(b, '}')
	if h.Protocol == settings.OLLM {
		b = append(b, '}')
	}
	return b, nil
}

// subject is what h's matcher is matched against in c's run; ok is false
// when the event does not apply to the run.
func (h *hook) subject(c *flows.Context) (string, bool) {
	switch h.Event {
	case settings.PreToolUse, settings.PostToolUse, settings.PostToolUseFailure:
		if c.Entity() == nil {
			return "", false
		}
		if h.Event == settings.PostToolUse {
			if res, ok := c.Output().(*mcp.CallToolResult); ok && res != nil && res.InputRequests != nil {
				return "", false // a question to the user, not the tool's result
			}
		}
		if h.Event == settings.PostToolUseFailure {
			var fe *flows.Error
			if !errors.As(c.Err(), &fe) || fe.Step != "execute" {
				return "", false // the tool did not run, or did not fail
			}
		}
		return h.p.toolSubject(c.Entity().Name), true
	case settings.SessionStart:
		return "startup", true
	case settings.UserPromptSubmit:
		if c.Entity() == nil {
			return "", false
		}
		return c.Entity().Name, true
	case settings.PreReadResource, settings.PostReadResource:
		return (flows.ResourceRead{Context: c}).URI(), true
	}
	return "", false
}

// promptText is UserPromptSubmit's "prompt": what a user of an agent types
// to get an MCP prompt, its slash command (/mcp__<server>__<name> with
// Config.AgentToolNames, else /<name>) followed by the arguments' values
// in the order of their names.
func (p *Plugin) promptText(name string, args map[string]string) string {
	var b strings.Builder
	b.WriteString("/")
	if p.cfg.AgentToolNames && !strings.HasPrefix(name, "mcp__") {
		b.WriteString("mcp__" + p.cfg.ServerName + "__")
	}
	b.WriteString(name)
	for _, k := range slices.Sorted(maps.Keys(args)) {
		b.WriteString(" ")
		b.WriteString(args[k])
	}
	return b.String()
}

// sessionRef is the session_id hooks read: the SHA-256, in hex, of the
// transport's session ID (never the ID itself: over streamable HTTP it is
// enough to send requests in the session), or, on transports without one
// (stdio, in memory), a random ID made for the MCP session when its first
// hook runs. Either is the same for every hook of one session.
func (p *Plugin) sessionRef(r *flows.Request) string {
	if r.SessionID != "" {
		sum := sha256.Sum256([]byte(r.SessionID))
		return hex.EncodeToString(sum[:])
	}
	if r.Session == nil {
		return ""
	}
	return *p.sessionIDs.Get(r.Session)
}

// newSessionID returns a random session ID of 32 hex digits.
func newSessionID() *string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	return &id
}

// toolSubject is the name hooks know a server's tool by when no ToolNames
// entry maps it: mcp__<server>__<tool> with Config.AgentToolNames.
func (p *Plugin) toolSubject(tool string) string {
	if p.cfg.AgentToolNames {
		return "mcp__" + p.cfg.ServerName + "__" + tool
	}
	return tool
}
