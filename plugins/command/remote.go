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

	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// httpKind is a hook that POSTs the event to a URL: "type": "http".
type httpKind struct{}

// promptKind is a hook that asks the client's model: "type": "prompt".
type promptKind struct{}

// compile checks an http hook's URL, headers and allowed variables: its
// definition, which its trust vouches for.
func (httpKind) compile(cp *compiler, s *site, p *problems) *compiled {
	h := s.hook
	remoteChecks(h, p)
	if h.Prompt != "" || h.Model != "" {
		p.bad("prompt", "an http hook has no prompt or model")
	}
	u, err := url.Parse(h.URL)
	switch {
	case h.URL == "":
		p.bad("url", "is missing: an http hook POSTs to a URL")
	case err != nil:
		p.bad("url", "is not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		p.bad("url", "%q is not an absolute http or https URL", h.URL)
	case u.User != nil:
		p.bad("url", "holds a user or password: put credentials in a header with allowedEnvVars")
	}
	def := []string{"http", h.URL, strings.Join(h.AllowedEnvVars, ",")}
	for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
		if !validHeaderName(k) || strings.ContainsAny(h.Headers[k], "\r\n\x00") {
			p.bad("headers."+k, "is not a valid header")
		}
		def = append(def, k+": "+h.Headers[k])
	}
	for i, v := range h.AllowedEnvVars {
		if !isEnvName(v) {
			p.bad(fmt.Sprintf("allowedEnvVars[%d]", i), "%q is not a variable name", v)
		}
	}
	return cp.remote(s, p, def, trust.FormHTTP, h.URL)
}

// compile checks a prompt hook's prompt: with its model, its definition,
// which its trust vouches for.
func (promptKind) compile(cp *compiler, s *site, p *problems) *compiled {
	h := s.hook
	remoteChecks(h, p)
	if h.URL != "" || len(h.Headers) > 0 || len(h.AllowedEnvVars) > 0 {
		p.bad("url", "a prompt hook has no url, headers or allowedEnvVars")
	}
	if strings.TrimSpace(h.Prompt) == "" {
		p.bad("prompt", "is missing: a prompt hook asks the model with a prompt")
	}
	if s.ev == settings.SessionStart {
		p.bad("type", "a prompt hook cannot run at SessionStart: a client cannot be asked anything before its session is initialized")
	}
	return cp.remote(s, p, []string{"prompt", h.Prompt, h.Model}, trust.FormPrompt, "prompt: "+excerptText(h.Prompt, 60))
}

// remoteChecks checks what an http or a prompt hook may not have: what
// only a process has.
func remoteChecks(h settings.Hook, p *problems) {
	if h.Command != "" {
		p.bad("command", "an %s hook has no command", h.Type)
	}
	if h.Protocol != settings.Claude && (h.Protocol != settings.Copilot || h.Type != "http") {
		p.bad("protocol", "an %s hook answers as the agents' hooks do: protocol must be claude (or copilot, for a GitHub Copilot file's http hook)", h.Type)
	}
	checkLimits(h, p)
	if len(h.Env) > 0 {
		p.bad("env", "an %s hook starts no process: it has no environment", h.Type)
	}
}

// remote compiles an http or prompt hook, whose failure rule, name, "if"
// and toolNames cp.hook has checked. Its identity for the trust store is
// its definition def, by form: an http hook's URL, headers and allowed
// variables, a prompt hook's prompt and model; a changed definition is
// "changed" until trusted again. command is what HookInfo shows as its
// command.
func (cp *compiler) remote(s *site, p *problems, def []string, form trust.Form, command string) *compiled {
	if len(p.errs) > 0 {
		return nil
	}
	h := s.hook
	c := s.compiled()
	c.Protocol, c.Name, c.Command = settings.Claude, cmpOr(h.Name, h.Type), command
	if h.Protocol == settings.Copilot {
		c.Protocol = settings.Copilot // a Copilot file's http hook: Copilot's input and answer
	}
	b, _ := json.Marshal(def)
	sum := sha256.Sum256(b)
	// The store keys an entry by its "script": an http hook's URL; a
	// prompt hook's event and name, once its name is final
	// (compiler.promptIdentity).
	c.Identity = trust.Identity{Form: form, Script: "http:" + h.URL, SHA256: hex.EncodeToString(sum[:])}
	if form == trust.FormPrompt {
		c.Identity.Script = "prompt:" + s.key + "/" + c.Name
	}
	if cp.store != nil {
		c.Trust = cp.store.Status(c.Identity)
	}
	return c
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
