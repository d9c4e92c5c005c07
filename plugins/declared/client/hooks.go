package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/declared"
)

// Firing is one of the host's events, as [Hooks.Fire] evaluates it.
type Firing struct {
	// Event is the lifecycle event.
	Event declared.Event
	// SessionID is {session_id}: the agent session.
	SessionID string
	// Tool is the tool call of a tool event; nil for the others.
	Tool *declared.ToolCall
}

// Injection is one text to put in the agent's context.
type Injection struct {
	// Server is the name of the declaring server; Index the declaration's
	// position in its list.
	Server string
	Index  int
	// Priority is the priority it fires with.
	Priority declared.Priority
	// Text is what to inject; Truncated says it was cut to fit
	// Config.MaxBytes.
	Text      string
	Truncated bool
}

// Hooks evaluates the declarations of the servers a host is connected to,
// under the host's policy ([Config]). It is safe for concurrent use.
type Hooks struct {
	cfg Config

	mu      sync.Mutex
	servers []*server
	fired   map[firedKey]*firings
}

type server struct {
	name    string
	session *mcp.ClientSession
	trust   Trust
	decls   []entry // accepted ones
}

type entry struct {
	index    int
	decl     declared.Declaration
	priority declared.Priority // effective
}

type firedKey struct {
	server string
	index  int
}

// firings holds when one declaration last fired: the last Rate.Events
// times, oldest first.
type firings struct{ at []time.Time }

// New returns Hooks with the policy cfg, or an error naming a bad setting.
func New(cfg Config) (*Hooks, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Hooks{cfg: c, fired: map[firedKey]*firings{}}, nil
}

// Add reads the declarations that the server behind cs sent in its
// initialize (or discover) result, under the name the host knows it by,
// which [Config.Trust] and the records use. It decides, once, which of
// them will fire: valid ones, of a trusted server, within
// MaxDeclarations, approved. A server that sent no experimental.hooks
// adds nothing. The context tools of the declarations are called through
// cs.
func (h *Hooks) Add(ctx context.Context, name string, cs *mcp.ClientSession) error {
	if cs == nil || cs.InitializeResult() == nil {
		return fmt.Errorf("client: Add %q: no initialized session", name)
	}
	h.mu.Lock()
	for _, s := range h.servers {
		if s.name == name {
			h.mu.Unlock()
			return fmt.Errorf("client: Add %q: a server of that name is already added", name)
		}
	}
	h.mu.Unlock()

	srv := &server{name: name, session: cs, trust: h.cfg.Trust[name]}
	decls, errs, _ := declared.ServerDeclarations(cs.InitializeResult().Capabilities)
	for i, d := range decls {
		rec := Record{Time: h.cfg.Now(), Server: name, Index: i, Event: d.Event}
		if errs[i] == nil {
			rec.Declared, rec.Priority = d.Priority, d.Priority
			if srv.trust != Untrusted {
				rec.Priority = srv.trust.effective(d.Priority)
			}
		}
		switch {
		case errs[i] != nil:
			rec.Outcome, rec.Err = Invalid, errs[i]
		case srv.trust == Untrusted:
			rec.Outcome = Ignored
		case len(srv.decls) >= h.cfg.MaxDeclarations:
			rec.Outcome = OverLimit
		case h.cfg.Approve != nil && !h.cfg.Approve(ctx, Proposal{Server: name, Index: i, Declaration: d, Priority: rec.Priority}):
			rec.Outcome = NotApproved
		default:
			rec.Outcome = Accepted
			srv.decls = append(srv.decls, entry{index: i, decl: d, priority: rec.Priority})
		}
		h.audit(rec)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.servers {
		if s.name == name {
			return fmt.Errorf("client: Add %q: a server of that name is already added", name)
		}
	}
	h.servers = append(h.servers, srv)
	return nil
}

// Remove forgets the server added under name, with its cooldowns and
// rates. It reports whether there was one.
func (h *Hooks) Remove(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := slices.IndexFunc(h.servers, func(s *server) bool { return s.name == name })
	if i < 0 {
		return false
	}
	h.servers = slices.Delete(h.servers, i, i+1)
	for k := range h.fired {
		if k.server == name {
			delete(h.fired, k)
		}
	}
	return true
}

// candidate is a declaration chosen to fire at one Fire.
type candidate struct {
	srv   *server
	e     entry
	rec   Record
	text  string
	err   error
	took  time.Duration
	taken bool // within the count cap and not throttled
}

// Fire evaluates the host's event f and returns the texts to inject, in
// order: strongest priority first, then in the order the servers were
// added, then in each server's order.
//
// For every accepted declaration whose event and matcher match, in that
// order: one that fired within Config.Cooldown, or Config.Rate.Events
// times within Rate.Per, is skipped; so is every one after
// Config.MaxPerEvent were taken. A taken declaration counts as fired (for
// cooldowns and rates) whatever becomes of its text. The texts are then
// made, context tools called concurrently, each with Config.ToolTimeout:
// static text and tool arguments are expanded ([declared.Expand]), and a
// tool's text is the text content of its result, blocks joined by
// newlines. Finally the texts are kept in order while they fit
// Config.MaxBytes. Every matching declaration gets one audit record.
func (h *Hooks) Fire(ctx context.Context, f Firing) []Injection {
	vars := declared.Vars{ProjectName: h.cfg.Project, SessionID: f.SessionID, Tool: f.Tool}
	cands := h.choose(f)
	var wg sync.WaitGroup
	for i := range cands {
		c := &cands[i]
		if !c.taken {
			continue
		}
		if c.e.decl.ContextTool == "" {
			c.text = declared.Expand(c.e.decl.Context, vars)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			c.text, c.err = h.callTool(ctx, c.srv.session, c.e.decl, vars)
			c.took = time.Since(t0)
		}()
	}
	wg.Wait()

	var out []Injection
	left := h.cfg.MaxBytes
	for _, c := range cands {
		rec := c.rec
		if c.taken {
			rec.Took = c.took
			switch {
			case c.err != nil:
				rec.Outcome, rec.Err = ToolFailed, c.err
			case c.text == "":
				rec.Outcome = Empty
			default:
				text, cut := truncate(c.text, left)
				if text == "" {
					rec.Outcome = CapExceeded
					break
				}
				left -= len(text)
				rec.Outcome, rec.Bytes = Injected, len(text)
				if cut {
					rec.Outcome = Truncated
				}
				out = append(out, Injection{Server: c.srv.name, Index: c.e.index, Priority: c.e.priority, Text: text, Truncated: cut})
			}
		}
		h.audit(rec)
	}
	return out
}

// choose finds the matching declarations, orders them and decides which
// are taken, under the lock that guards the firing times.
func (h *Hooks) choose(f Firing) []candidate {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.cfg.Now()
	var cands []candidate
	for _, s := range h.servers {
		for _, e := range s.decls {
			if e.decl.Matches(f.Event, f.Tool) {
				cands = append(cands, candidate{srv: s, e: e, rec: Record{
					Time: now, Server: s.name, Index: e.index, Event: f.Event, Declared: e.decl.Priority, Priority: e.priority,
				}})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.e.priority, a.e.priority) })
	taken := 0
	for i := range cands {
		c := &cands[i]
		key := firedKey{c.srv.name, c.e.index}
		fs := h.fired[key]
		switch {
		case fs != nil && h.cfg.Cooldown > 0 && now.Sub(fs.last()) < h.cfg.Cooldown:
			c.rec.Outcome = CooledDown
		case fs != nil && h.cfg.Rate.Events > 0 && len(fs.at) >= h.cfg.Rate.Events && now.Sub(fs.at[len(fs.at)-h.cfg.Rate.Events]) < h.cfg.Rate.Per:
			c.rec.Outcome = RateLimited
		case taken >= h.cfg.MaxPerEvent:
			c.rec.Outcome = CapExceeded
		default:
			c.taken = true
			taken++
			if fs == nil {
				fs = &firings{}
				h.fired[key] = fs
			}
			fs.add(now, max(h.cfg.Rate.Events, 1))
		}
	}
	return cands
}

func (f *firings) last() time.Time { return f.at[len(f.at)-1] }

// add records a firing at t, keeping the last keep.
func (f *firings) add(t time.Time, keep int) {
	f.at = append(f.at, t)
	if len(f.at) > keep {
		f.at = slices.Delete(f.at, 0, len(f.at)-keep)
	}
}

// callTool calls d's context tool with its expanded arguments and returns
// the text of the result.
func (h *Hooks) callTool(ctx context.Context, cs *mcp.ClientSession, d declared.Declaration, vars declared.Vars) (string, error) {
	params := &mcp.CallToolParams{Name: d.ContextTool}
	if len(d.ContextToolArgs) > 0 {
		args, err := declared.ExpandArgs(d.ContextToolArgs, vars)
		if err != nil {
			return "", fmt.Errorf("context_tool_args: %w", err)
		}
		params.Arguments = args
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.ToolTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", fmt.Errorf("context_tool %q: no result within %v", d.ContextTool, h.cfg.ToolTimeout)
		}
		return "", fmt.Errorf("context_tool %q: %w", d.ContextTool, err)
	}
	text := resultText(res)
	if res.IsError {
		return "", fmt.Errorf("context_tool %q returned an error: %s", d.ContextTool, text)
	}
	return text, nil
}

// resultText joins the text content blocks of res with newlines.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// truncate returns s cut to at most n bytes at a character boundary, and
// whether it was cut.
func truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

func (h *Hooks) audit(r Record) {
	if h.cfg.Audit != nil {
		h.cfg.Audit(r)
	}
}
