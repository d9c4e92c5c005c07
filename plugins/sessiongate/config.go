package sessiongate

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/hookflow/hookflow/internal/redisconf"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
)

// Config configures the session gate; it is also the gate's section of a
// configuration file (the yaml names below). The zero value gates
// nothing: set Requires or RequireAll.
type Config struct {
	// InitTool is the tool that initializes a session; "" means
	// DefaultInitTool ("session_init"). It is never gated.
	InitTool string `yaml:"init_tool"`
	// ReadyTool, when set, is a tool that must succeed after the init
	// tool (a "check the reporting setup" step): it moves the session
	// from initialized to ready, and is itself gated until the session is
	// initialized. Without it (the default), the init tool makes the
	// session ready.
	ReadyTool string `yaml:"ready_tool"`
	// Requires lists the tools that need a ready session.
	Requires []string `yaml:"requires"`
	// RequireAll gates every tool but InitTool, ReadyTool and Exempt;
	// false by default.
	RequireAll bool `yaml:"require_all"`
	// Exempt lists tools RequireAll leaves open.
	Exempt []string `yaml:"exempt"`
	// Store keeps the sessions' states; nil uses the Redis store Redis
	// describes, or, without it, NewMemory. Go only.
	Store Store `yaml:"-"`
	// Redis, when set and Store is nil, keeps the sessions' states in
	// Redis, shared by the server instances behind a load balancer: New
	// builds the client and [NewRedis]; [Plugin.Close] closes it. By
	// default the states are in memory, per process.
	Redis *RedisConfig `yaml:"redis"`
	// Idle is how long the state of a session that makes no call is kept
	// by the store New builds (in memory or in Redis), such as "12h"; 0
	// means DefaultIdle (24h).
	Idle time.Duration `yaml:"idle"`
	// Key says which session a request belongs to; nil means SessionKey's
	// choice, by default BySession. Go only.
	Key func(*flows.Request) string `yaml:"-"`
	// SessionKey, when Key is nil, chooses it: "session" ([BySession],
	// the default), "principal" ([ByPrincipal]) or "header:<name>"
	// ([ByHeader] of that HTTP header, such as "header:X-Conversation").
	SessionKey string `yaml:"key"`
	// OnStoreError decides a gated call when the store fails or no key
	// is found: "closed" ([flows.FailClosed], the default) refuses it
	// with an [*UnavailableError]; "open" ([flows.FailOpen]) lets it
	// through.
	OnStoreError flows.FailurePolicy `yaml:"on_store_error"`
	// Timeout bounds each store call, such as "250ms"; 0 means
	// DefaultTimeout (250ms). It is not applied to the in-memory store.
	Timeout time.Duration `yaml:"timeout"`
	// Priority of the gate's check (tools:call-tool beforeValidation);
	// 0 means DefaultPriority.
	Priority int `yaml:"priority"`
	// OnTransition, when set, is called with every state transition, on
	// the call's goroutine, after the call succeeded. Go only.
	OnTransition func(Transition) `yaml:"-"`
	// Unlist leaves gated tools out of tools/list while the caller's
	// session is not ready (they stay callable, so that a call gets the
	// gate's directive). Clients list tools once, usually before the
	// model initializes the session, and are not told when the list
	// changes: turn it on only for clients that list again. It needs a
	// store that answers without I/O (a Peeker, such as Memory): not
	// Redis. Off by default.
	Unlist bool `yaml:"unlist"`
	// Blocked returns the text of a blocked call, which the model reads;
	// nil uses Messages, or DefaultBlocked. Go only.
	Blocked func(Block) string `yaml:"-"`
	// Next returns the text added to the result of a call that moved the
	// session forward ("" adds none); nil uses Messages, or DefaultNext.
	// Go only.
	Next func(Transition, *Config) string `yaml:"-"`
	// Messages word the texts the model reads, when Blocked or Next is
	// nil; each text left out is the default's.
	Messages *Messages `yaml:"messages"`
	// Logger receives store failures (at most one line a second); nil
	// uses the server's logger. Go only.
	Logger *slog.Logger `yaml:"-"`
}

// Messages are the texts of [Config.Messages]. In each, {tool} is the
// called tool, {call} the tool the model must call first (for the
// blocked texts) and {ready_tool} Config.ReadyTool; no other {…} is
// allowed. An empty text is the default's ([DefaultBlocked],
// [DefaultNext]).
type Messages struct {
	// Uninitialized is the text of a call blocked because the session is
	// not initialized, such as "Call {call} before {tool}."
	Uninitialized string `yaml:"uninitialized"`
	// NotReady is the text of a call blocked because the initialized
	// session is not ready yet (with a ready tool).
	NotReady string `yaml:"not_ready"`
	// Initialized is added to the result of the init tool's call when the
	// session waits for the ready tool; it needs ready_tool.
	Initialized string `yaml:"initialized"`
	// Ready is added to the result of the call that made the session
	// ready.
	Ready string `yaml:"ready"`
}

// RedisConfig is the Redis server that keeps the sessions' states when
// [Config.Redis] is set. New's client bounds dials and pool waits by the
// gate's Timeout, honours the calls' deadlines, and does not retry.
type RedisConfig struct {
	// Addr is the Redis server's address, host:port; required.
	Addr string `yaml:"addr"`
	// Username is the ACL user to authenticate as; "" uses the default
	// user (with PasswordEnv) or none.
	Username string `yaml:"username"`
	// PasswordEnv names the environment variable holding the password;
	// "" sends none. The password itself never goes in the file.
	PasswordEnv string `yaml:"password_env"`
	// DB is the database number; 0 by default.
	DB int `yaml:"db"`
	// TLS connects over TLS, checking the server's certificate against
	// the system's roots and Addr's host; off by default.
	TLS bool `yaml:"tls"`
	// Prefix starts every session's key; "" means DefaultRedisPrefix
	// ("hookflow:sessiongate:").
	Prefix string `yaml:"prefix"`
}

// Block describes a blocked call, for [Config.Blocked].
type Block struct {
	// Tool is the called tool.
	Tool string
	// State is the session's state.
	State State
	// Call is the tool the model must call first: the init tool, or the
	// ready tool in an initialized session.
	Call string
}

// DefaultBlocked is the text of a blocked call: MCP Toolkit's directive
// when the session is not initialized, e.g.
//
//	Tool "my_tool" requires session initialization. You MUST call session_init first before using any other tools. This is a MANDATORY first action.
func DefaultBlocked(b Block) string {
	if b.State == Uninitialized {
		return fmt.Sprintf("Tool %q requires session initialization. You MUST call %s first before using any other tools. This is a MANDATORY first action.", b.Tool, b.Call)
	}
	return fmt.Sprintf("Tool %q requires a ready session. You MUST call %s first, then call %q again.", b.Tool, b.Call, b.Tool)
}

// DefaultNext is the text added to the result of the call that initialized
// the session or made it ready; other transitions add none.
func DefaultNext(t Transition, cfg *Config) string {
	switch {
	case t.To == Initialized && cfg.ReadyTool != "":
		return fmt.Sprintf("The session is initialized. You MUST call %s next, before using the other tools.", cfg.ReadyTool)
	case t.To == Ready:
		return "The session is ready: you may now use the other tools."
	}
	return ""
}

// Validate reports what is wrong with the configuration: nil, or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose
// Field is the setting's path in a configuration file ("requires[1]",
// "redis.addr"; "" for the whole section). It checks everything that
// needs no server; the tools it names are checked by [Plugin.Check]. The
// gate's Attach calls it.
func (c Config) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	initTool := cmp.Or(c.InitTool, DefaultInitTool)
	if len(c.Requires) == 0 && !c.RequireAll {
		add("", "no tool is gated: set requires or require_all")
	}
	if c.ReadyTool == initTool {
		add("ready_tool", "%q is the init tool", c.ReadyTool)
	}
	for i, name := range c.Requires {
		switch name {
		case "":
			add(fmt.Sprintf("requires[%d]", i), "a tool name is empty")
		case initTool:
			add(fmt.Sprintf("requires[%d]", i), "%q is the init tool, which is never gated", name)
		}
	}
	for i, name := range c.Exempt {
		if name == "" {
			add(fmt.Sprintf("exempt[%d]", i), "a tool name is empty")
		}
	}
	if len(c.Exempt) > 0 && !c.RequireAll {
		add("exempt", "only require_all gates tools to exempt (requires lists the gated ones)")
	}
	if c.Timeout < 0 {
		add("timeout", "must not be negative, got %v", c.Timeout)
	}
	if c.Idle < 0 {
		add("idle", "must not be negative, got %v", c.Idle)
	}
	if !c.OnStoreError.Valid() {
		add("on_store_error", "unknown policy %d: want closed or open", uint8(c.OnStoreError))
	}
	if c.Key == nil {
		if _, msg := keyFunc(c.SessionKey); msg != "" {
			add("key", "%s", msg)
		}
	}
	if r := c.Redis; r != nil {
		if c.Store != nil {
			add("redis", "Config.Store is set too: keep one")
		}
		r.check(add)
	}
	if c.Unlist {
		switch _, peeker := c.Store.(Peeker); {
		case c.Store != nil && !peeker:
			add("unlist", "the store (%T) cannot answer without I/O; use a Peeker such as sessiongate.Memory, or leave unlist off", c.Store)
		case c.Store == nil && c.Redis != nil:
			add("unlist", "the Redis store cannot answer without I/O: leave unlist off, or keep the states in memory")
		}
	}
	if m := c.Messages; m != nil {
		for _, t := range []struct{ field, text string }{
			{"messages.uninitialized", m.Uninitialized}, {"messages.not_ready", m.NotReady},
			{"messages.initialized", m.Initialized}, {"messages.ready", m.Ready},
		} {
			if _, msg := expand(t.text, nil); msg != "" {
				add(t.field, "%s", msg)
			}
		}
		if m.Initialized != "" && c.ReadyTool == "" {
			add("messages.initialized", "is read only with a ready_tool: without one the init tool makes the session ready (word that in messages.ready)")
		}
	}
	return errors.Join(errs...)
}

// keyFunc returns the key function a file's key names, or what is wrong
// with it.
func keyFunc(s string) (func(*flows.Request) string, string) {
	switch s {
	case "", "session":
		return BySession, ""
	case "principal":
		return ByPrincipal, ""
	}
	if name, ok := strings.CutPrefix(s, "header:"); ok {
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
			return nil, fmt.Sprintf("want an HTTP header name after header:, such as header:X-Conversation, got %q", s)
		}
		return ByHeader(name), ""
	}
	msg := fmt.Sprintf("unknown key %q: want session, principal or header:<name>", s)
	if near, ok := suggest.Closest(s, []string{"session", "principal"}); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return nil, msg
}

// isTokenChar reports whether r may be in an HTTP header name (RFC 9110's
// tchar).
func isTokenChar(r rune) bool {
	return r < 0x7f && r > ' ' && !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
}

// placeholders are what a message may name; vals their values, in order.
var placeholders = [...]string{"tool", "call", "ready_tool"}

// expand returns text with each {name} of placeholders replaced by vals'
// value of the same index, or what is wrong with text: an unknown name or
// an unclosed brace. With nil vals it only checks.
func expand(text string, vals []string) (string, string) {
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String(), ""
		}
		b.WriteString(text[:i])
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			return "", fmt.Sprintf("an unclosed { at byte %d: placeholders are {tool}, {call} and {ready_tool}", len(text[:i]))
		}
		name := text[i+1 : i+j]
		k := -1
		for n, p := range placeholders {
			if p == name {
				k = n
			}
		}
		if k < 0 {
			msg := fmt.Sprintf("unknown placeholder {%s}: want {tool}, {call} or {ready_tool}", name)
			if near, ok := suggest.Closest(name, placeholders[:]); ok {
				msg += fmt.Sprintf(" (did you mean {%s}?)", near)
			}
			return "", msg
		}
		if k < len(vals) {
			b.WriteString(vals[k])
		}
		text = text[i+j+1:]
	}
}

// blockedText returns the Blocked function of m: its texts, or the
// default's where it has none.
func (m Messages) blockedText(readyTool string) func(Block) string {
	return func(b Block) string {
		text := m.NotReady
		if b.State == Uninitialized {
			text = m.Uninitialized
		}
		if text == "" {
			return DefaultBlocked(b)
		}
		s, _ := expand(text, []string{b.Tool, b.Call, readyTool})
		return s
	}
}

// nextText returns the Next function of m: its texts, or the default's
// where it has none.
func (m Messages) nextText() func(Transition, *Config) string {
	return func(t Transition, cfg *Config) string {
		var text string
		switch {
		case t.To == Initialized && cfg.ReadyTool != "":
			text = m.Initialized
		case t.To == Ready:
			text = m.Ready
		}
		if text == "" {
			return DefaultNext(t, cfg)
		}
		s, _ := expand(text, []string{t.Tool, "", cfg.ReadyTool})
		return s
	}
}

// check reports what is wrong with a Redis configuration.
func (r *RedisConfig) check(add func(field, format string, args ...any)) {
	redisconf.Check(r.Addr, r.PasswordEnv, r.DB, add)
}

// valid reports whether r has nothing to report.
func (r *RedisConfig) valid() bool { return redisconf.Valid(r.check) }

// store returns the Redis store r describes and its client, for calls
// bounded by timeout, keeping states idle for idle.
func (r *RedisConfig) store(timeout, idle time.Duration) (*Redis, *redis.Client) {
	opts := &redis.Options{
		Addr: r.Addr, Username: r.Username, DB: r.DB,
		DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, PoolTimeout: timeout,
		ContextTimeoutEnabled: true, MaxRetries: -1, DisableIdentity: true, Protocol: 2,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	if r.PasswordEnv != "" {
		opts.Password = os.Getenv(r.PasswordEnv)
	}
	if r.TLS {
		host, _, _ := net.SplitHostPort(r.Addr)
		opts.TLSConfig = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	client := redis.NewClient(opts)
	return NewRedis(client, &RedisOptions{Prefix: r.Prefix, Idle: idle}), client
}
