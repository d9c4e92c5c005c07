package command

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/trust"
)

// RemoteHook holds the fields of the hooks that run no process: an
// "http" hook POSTs the event's JSON to URL and reads the answer from the
// response's body, as a command hook's stdout; a "prompt" hook asks the
// client's model, through MCP sampling, to judge the event by Prompt.
type RemoteHook struct {
	// URL is where an http hook POSTs: an absolute http or https URL.
	// Redirects to another host are refused; https certificates are
	// verified.
	URL string
	// Headers are the http hook's request headers. A value may name
	// variables of the server's environment, $NAME or ${NAME}, and only
	// those in AllowedEnvVars are filled in; any other is left empty.
	Headers map[string]string
	// AllowedEnvVars are the variables Headers may name.
	AllowedEnvVars []string
	// Prompt is a prompt hook's instruction to the model. $ARGUMENTS in
	// it is replaced by the event's JSON; without it, the JSON follows
	// the prompt.
	Prompt string
	// Model is a prompt hook's model, passed to the client as a hint.
	Model string
}

// remote reads the keys of http and prompt hooks.
func (d *decoder) remote(path, key string, v *node, r *RemoteHook) {
	switch key {
	case "url":
		r.URL = d.str(path, v)
	case "prompt":
		r.Prompt = d.str(path, v)
	case "model":
		r.Model = d.str(path, v)
	case "headers":
		r.Headers = d.env(path, v)
	case "allowedEnvVars":
		if names, ok := decodeArray(d, path, v, "variable names", d.str); ok {
			r.AllowedEnvVars = append(r.AllowedEnvVars, names...)
		}
	}
}

// remote compiles an http or prompt hook, whose failure rule, name, "if"
// and toolNames cp.hook has checked. Its identity for the trust store is
// its definition ([trust.FormHTTP], [trust.FormPrompt]): an http hook's URL, headers
// and allowed variables, a prompt hook's prompt and model; a changed
// definition is "changed" until trusted again.
func (cp *compiler) remote(ev Event, key, matcherText string, m matcher, h Hook, path string, src *source) (*compiled, []*ConfigError) {
	var errs []*ConfigError
	bad := func(field, format string, args ...any) {
		p := path
		if field != "" {
			p += "." + field
		}
		errs = append(errs, src.errorf(p, format, args...))
	}
	if h.Command != "" {
		bad("command", "an %s hook has no command", h.Type)
	}
	if h.Protocol != Claude {
		bad("protocol", "an %s hook answers as the agents' hooks do: protocol must be claude", h.Type)
	}
	if h.Timeout < 0 || h.MaxConcurrent < 0 || h.MaxOutputBytes < 0 || h.Cooldown < 0 {
		bad("", "timeout, cooldown, maxConcurrent and maxOutputBytes must not be negative")
	}
	if (h.RateLimit.Calls > 0) != (h.RateLimit.Per > 0) {
		bad("rateLimit", "needs both calls (at least 1) and per (seconds), got %d per %v", h.RateLimit.Calls, h.RateLimit.Per)
	}
	if len(h.Env) > 0 {
		bad("env", "an %s hook starts no process: it has no environment", h.Type)
	}
	var def []string // the definition the trust store vouches for
	switch h.Type {
	case "http":
		if h.Prompt != "" || h.Model != "" {
			bad("prompt", "an http hook has no prompt or model")
		}
		u, err := url.Parse(h.URL)
		switch {
		case h.URL == "":
			bad("url", "is missing: an http hook POSTs to a URL")
		case err != nil:
			bad("url", "is not a URL: %v", err)
		case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
			bad("url", "%q is not an absolute http or https URL", h.URL)
		case u.User != nil:
			bad("url", "holds a user or password: put credentials in a header with allowedEnvVars")
		}
		for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
			if !validHeaderName(k) || strings.ContainsAny(h.Headers[k], "\r\n\x00") {
				bad("headers."+k, "is not a valid header")
			}
			def = append(def, k+": "+h.Headers[k])
		}
		for i, v := range h.AllowedEnvVars {
			if !isEnvName(v) {
				bad(fmt.Sprintf("allowedEnvVars[%d]", i), "%q is not a variable name", v)
			}
		}
		def = append([]string{"http", h.URL, strings.Join(h.AllowedEnvVars, ",")}, def...)
	case "prompt":
		if h.URL != "" || len(h.Headers) > 0 || len(h.AllowedEnvVars) > 0 {
			bad("url", "a prompt hook has no url, headers or allowedEnvVars")
		}
		if strings.TrimSpace(h.Prompt) == "" {
			bad("prompt", "is missing: a prompt hook asks the model with a prompt")
		}
		if ev == SessionStart {
			bad("type", "a prompt hook cannot run at SessionStart: a client cannot be asked anything before its session is initialized")
		}
		def = []string{"prompt", h.Prompt, h.Model}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	c := &compiled{match: m, hook: h}
	c.Event, c.Key, c.Matcher, c.Path = ev, key, matcherText, path
	c.Protocol, c.OnFailure, c.File, c.Description, c.Timeout = Claude, h.OnFailure, src.file, h.Description, h.Timeout
	c.Where = src.errorf(path, "").location()
	if src.file != "" {
		c.trustArgs = src.opts.trustArgs(src.file)
	}
	c.Name = cmpOr(h.Name, h.Type)
	c.Command = h.URL
	if h.Type == "prompt" {
		c.Command = "prompt: " + excerptText(h.Prompt, 60)
	}
	b, _ := json.Marshal(def)
	sum := sha256.Sum256(b)
	// The store keys an entry by its "script": an http hook's URL; a
	// prompt hook's event and name, once its name is final
	// (compiler.promptIdentity).
	c.Identity = trust.Identity{Form: trust.FormPrompt, Script: "prompt:" + key + "/" + c.Name, SHA256: hex.EncodeToString(sum[:])}
	if h.Type == "http" {
		c.Identity.Form, c.Identity.Script = trust.FormHTTP, "http:"+h.URL
	}
	if cp.store != nil {
		c.Trust = cp.store.Status(c.Identity)
	}
	return c, nil
}

// validHeaderName reports whether k is an HTTP header name (a token).
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r > 126 || r <= 32 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// excerptText returns s on one line, cut to max runes.
func excerptText(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
