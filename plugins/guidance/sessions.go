package guidance

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// session is what the plugin remembers per MCP session (in
// Plugin.sessions, a [flows.SessionState] that drops it when its session is
// garbage collected): log messages waiting for the client to set a log
// level, the notices already sent (each is sent once per session), and
// cancel guidance waiting for the session's next tool result.
type session struct {
	mu sync.Mutex
	// pending are messages composed before the client could receive
	// them: at initialize, before it set a log level.
	pending []*mcp.LoggingMessageParams
	// sent are the texts of the notices and errors sent, or pending.
	sent map[string]bool
	// cancelled is cancel guidance for the next tool result.
	cancelled []string
}

func newSession() *session { return &session{} }

// once reports whether text is new to the session, and records it.
func (st *session) once(text string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sent[text] {
		return false
	}
	if st.sent == nil {
		st.sent = map[string]bool{}
	}
	st.sent[text] = true
	return true
}

// report sends, once per session, the transparency of a composition: an
// error for each hook whose content failed to load, then its notices.
// With hold (at initialize, where the client has not set a log level
// yet) the messages wait for the client's logging/setLevel.
func (p *Plugin) report(ctx context.Context, ss *mcp.ServerSession, c *Composed, hold bool) {
	if ss == nil || len(c.Failed) == 0 && len(c.Notices) == 0 {
		return
	}
	st := p.sessions.Get(ss)
	var msgs []*mcp.LoggingMessageParams
	for _, f := range c.Failed {
		if text := f.ID + ": " + f.Reason + " (the hook is left out)"; st.once(text) {
			msgs = append(msgs, &mcp.LoggingMessageParams{Level: "error", Logger: LoggerName, Data: text})
		}
	}
	for _, n := range c.Notices {
		if st.once(n) {
			msgs = append(msgs, &mcp.LoggingMessageParams{Level: "notice", Logger: LoggerName, Data: n})
		}
	}
	if hold {
		st.mu.Lock()
		st.pending = append(st.pending, msgs...)
		st.mu.Unlock()
		return
	}
	p.send(ctx, ss, msgs)
}

// send logs msgs to the client of ss (the SDK drops them while the client
// has set no log level, or a higher one).
func (p *Plugin) send(ctx context.Context, ss *mcp.ServerSession, msgs []*mcp.LoggingMessageParams) {
	for _, m := range msgs {
		if err := ss.Log(ctx, m); err != nil {
			p.logger.Load().Debug("guidance: could not log to the client", "error", err.Error())
			return
		}
	}
}

// flush runs in logging:set-level afterExecute: once a client has set its
// log level, it gets the messages composed at its initialize.
func (p *Plugin) flush(c *flows.Context) error {
	ss := c.Session()
	st, ok := p.sessions.Lookup(ss)
	if !ok {
		return nil
	}
	st.mu.Lock()
	msgs := st.pending
	st.pending = nil
	st.mu.Unlock()
	p.send(c.Context(), ss, msgs)
	return nil
}
