package command

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"mvdan.cc/sh/v3/syntax"

	"github.com/hookflow/hookflow/plugins/command/settings"
	"mvdan.cc/sh/v3/pattern"
)

// ifRule is a hook's "if" condition, one rule in Claude Code's
// permission-rule syntax: Tool, or Tool(specifier). Where hookflow cannot
// read what the call holds (an unknown command construct, a missing
// argument), the rule matches: a guard never silently skips a call the
// agent would have run it for.
type ifRule struct {
	text string
	// tool is the rule's tool name; tools, the calls' tool names it
	// covers (an Edit rule covers Write too), nil for tool alone.
	tool  string
	tools []string
	// spec is the specifier, "" for the tool alone or Tool(*).
	spec string
	kind specKind
	// param, value: the Tool(param:value) reading of spec, when spec has
	// that form.
	param, value string
	// command is spec compiled for a Bash rule; valuePat, value's
	// pattern (a host's, for WebFetch).
	command  commandSpec
	valuePat *regexp.Regexp
}

type specKind int

const (
	specNone    specKind = iota // the tool alone
	specCommand                 // Bash: a command pattern
	specPath                    // Read, Edit…: a gitignore-style path pattern
	specDomain                  // WebFetch(domain:host)
	specParam                   // Tool(param:value) only
)

// ruleTools are the tools a rule of a tool names covers, after the
// reference: Edit rules apply to every tool that edits files, Read rules
// (best effort) to Grep and Glob.
var ruleTools = map[string][]string{
	"Read":         {"Read", "Grep", "Glob"},
	"Edit":         {"Edit", "Write", "MultiEdit", "NotebookEdit"},
	"Write":        {"Write", "Edit", "MultiEdit", "NotebookEdit"},
	"MultiEdit":    {"MultiEdit"},
	"NotebookEdit": {"NotebookEdit"},
	"Grep":         {"Grep"},
	"Glob":         {"Glob"},
}

// pathFields are the arguments a path rule reads, the first present.
var pathFields = []string{"file_path", "notebook_path", "path"}

// parseIf reads a hook's "if" condition for event ev. A form the
// reference does not document for the tool is refused, rather than
// guessed at.
func parseIf(s string, ev settings.Event) (*ifRule, error) {
	switch ev {
	case settings.PreToolUse, settings.PostToolUse, settings.PostToolUseFailure:
	default:
		return nil, fmt.Errorf("applies to tool events only, not %s", ev)
	}
	s = strings.TrimSpace(s)
	r := &ifRule{text: s, tool: s}
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") || strings.TrimSpace(s[i+1:len(s)-1]) == "" {
			return nil, fmt.Errorf("%q is not a rule: write Tool or Tool(specifier), one rule per hook", s)
		}
		r.tool, r.spec = s[:i], strings.TrimSpace(s[i+1:len(s)-1])
		if !balanced(r.spec) {
			return nil, fmt.Errorf("%q is not one rule: an \"if\" holds one rule, Tool or Tool(specifier); for several, give the hook once per rule", s)
		}
	}
	if !toolRuleName(r.tool) {
		return nil, fmt.Errorf("%q is not a tool name: an \"if\" holds one rule, Tool or Tool(specifier); for several, give the hook once per rule", r.tool)
	}
	r.tools = ruleTools[r.tool]
	if r.spec == "*" {
		r.spec = ""
	}
	if r.spec == "" {
		return r, nil
	}
	if p, v, ok := strings.Cut(r.spec, ":"); ok && syntax.ValidName(p) {
		r.param, r.value = p, v
		r.valuePat = starPattern(v)
	}
	switch {
	case r.tool == "Bash":
		r.kind, r.command = specCommand, newCommandSpec(r.spec)
	case ruleTools[r.tool] != nil:
		r.kind = specPath
		if err := checkPathPattern(r.spec); err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
	case r.tool == "WebFetch" && r.param == "domain":
		r.kind, r.valuePat = specDomain, starPattern(strings.ToLower(r.value))
	case r.param != "":
		r.kind = specParam
	default:
		return nil, fmt.Errorf("%q has a specifier hookflow does not know for %s: it reads Bash commands, the paths of Read, Edit and Write, WebFetch(domain:…) and Tool(param:value)", s, r.tool)
	}
	return r, nil
}

// balanced reports whether the parentheses of s close in order, as a
// specifier's do; Bash(a)|Bash(b) has a specifier that does not.
func balanced(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// toolRuleName reports whether s names a tool in a rule: a name, or an
// MCP server's tools (mcp__server, mcp__server__*).
func toolRuleName(s string) bool {
	if s == "" || strings.ContainsAny(s, "|, ") {
		return false
	}
	if strings.HasPrefix(s, "mcp__") && strings.HasSuffix(s, "__*") {
		s = strings.TrimSuffix(s, "__*")
	}
	return isNameList(s)
}

// selects reports whether the rule's tool covers a call of tool name.
func (r *ifRule) selects(name string) bool {
	switch {
	case r.tools != nil:
		return slices.Contains(r.tools, name)
	case strings.HasPrefix(r.tool, "mcp__"):
		t := strings.TrimSuffix(r.tool, "__*")
		if strings.HasSuffix(r.tool, "__*") || strings.Count(t, "__") == 1 {
			return name == t || strings.HasPrefix(name, t+"__")
		}
	}
	return name == r.tool
}

// matches reports whether a call of tool name with arguments input (the
// names the hook's script knows them by) meets the rule. Whatever it
// cannot read matches.
func (r *ifRule) matches(name string, input json.RawMessage) bool {
	if !r.selects(name) {
		return false
	}
	if r.kind == specNone {
		return true
	}
	var args map[string]json.RawMessage
	if len(input) > 0 && json.Unmarshal(input, &args) != nil {
		return true
	}
	if r.param != "" && r.paramMatches(args) {
		return true
	}
	switch r.kind {
	case specCommand:
		cmd, ok := stringArg(args, "command")
		return !ok || r.command.matches(cmd)
	case specPath:
		if name == "Grep" || name == "Glob" {
			return true // a search reads what is under its path: cannot tell
		}
		for _, f := range pathFields {
			if p, ok := stringArg(args, f); ok {
				return pathMatches(r.spec, p)
			}
		}
		return true
	case specDomain:
		u, ok := stringArg(args, "url")
		return !ok || domainMatches(r.value, r.valuePat, u)
	}
	return false
}

// stringArg returns the string argument k; ok is false when it is
// missing or not a string.
func stringArg(args map[string]json.RawMessage, k string) (string, bool) {
	var s string
	v, ok := args[k]
	return s, ok && json.Unmarshal(v, &s) == nil
}

// paramMatches is Tool(param:value): the top-level argument param,
// compared as sent (a string's text, else its JSON), * matching any run
// of characters. An argument not sent does not match; an object or an
// array, which the rule cannot compare, does.
func (r *ifRule) paramMatches(args map[string]json.RawMessage) bool {
	v, ok := args[r.param]
	if !ok || string(v) == "null" {
		return false
	}
	text := string(v)
	switch v[0] {
	case '"':
		if json.Unmarshal(v, &text) != nil {
			return true
		}
	case '{', '[':
		return true
	}
	return r.valuePat.MatchString(text)
}

// commandMatches is a Bash rule: the command matches when one of its
// subcommands does, when the whole line does, or when it cannot be read.
func commandMatches(spec, cmd string) bool { return newCommandSpec(spec).matches(cmd) }

// commandSpec is a Bash rule's specifier, compiled: * is any run of
// characters; a trailing " *" also matches the command alone (git for
// "git *"); the legacy trailing ":*" is a prefix.
type commandSpec struct {
	prefix      string // the ":*" form's, else ""
	legacy      bool
	whole, bare *regexp.Regexp // spec, and spec without its " *" (nil)
}

func newCommandSpec(spec string) commandSpec {
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		return commandSpec{prefix: p, legacy: true}
	}
	c := commandSpec{whole: starPattern(spec)}
	if p, ok := strings.CutSuffix(spec, " *"); ok {
		c.bare = starPattern(p)
	}
	return c
}

func (c commandSpec) matches(cmd string) bool {
	cmds, ok := subcommands(cmd)
	if !ok || c.pattern(strings.TrimSpace(cmd)) {
		return true // unreadable, or matched as a whole
	}
	for _, sc := range cmds {
		texts, opaque := sc.forms()
		if opaque {
			return true
		}
		for _, t := range texts {
			if c.pattern(t) {
				return true
			}
		}
	}
	return false
}

// pattern matches one subcommand's text.
func (c commandSpec) pattern(text string) bool {
	if c.legacy {
		return strings.HasPrefix(text, c.prefix)
	}
	return c.whole.MatchString(text) || c.bare != nil && c.bare.MatchString(text)
}

// starPattern compiles a rule's pattern, in which * is any run of
// characters, slashes included, as the agent reads it, and everything
// else is itself. A match takes time linear in the text's length.
func starPattern(p string) *regexp.Regexp {
	parts := strings.Split(p, "*")
	for i, part := range parts {
		parts[i] = pattern.QuoteMeta(part, 0)
	}
	expr, err := pattern.Regexp(strings.Join(parts, "*"), pattern.EntireString|pattern.NoGlobStar)
	if err != nil {
		panic("command: a quoted pattern does not compile: " + err.Error())
	}
	return regexp.MustCompile(expr)
}

// domainMatches is WebFetch(domain:host): the URL's host is host or one
// of its subdomains, or matches it with *. A URL that cannot be read
// matches.
func domainMatches(host string, pat *regexp.Regexp, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return true
	}
	h, host := strings.ToLower(u.Hostname()), strings.ToLower(host)
	return h == host || strings.HasSuffix(h, "."+host) || pat.MatchString(h)
}

// maxPathStars bounds the ** of a path pattern.
const maxPathStars = 8

// checkPathPattern refuses a path pattern a path glob cannot read.
func checkPathPattern(spec string) error {
	if strings.Count(spec, "**") > maxPathStars {
		return fmt.Errorf("has more than %d **", maxPathStars)
	}
	for _, seg := range strings.Split(spec, "/") {
		if !doublestar.ValidatePattern(seg) {
			return fmt.Errorf("%q is not a file name pattern", seg)
		}
	}
	return nil
}

// pathMatches is a path rule of Read, Edit or Write, in gitignore's
// syntax: * within a name, ** across directories, a pattern naming a
// directory matches what is under it. //path is absolute; every other
// form (~/path, /path from the project root, ./path and path from the
// working directory) is matched, more widely than the agent, against any
// run of the path's names, as hookflow does not know the agent's
// directories. A relative or overlong path matches.
func pathMatches(spec, p string) bool {
	if len(p) > maxIfInput || !strings.HasPrefix(p, "/") {
		return true
	}
	var pat string
	anchored := strings.HasPrefix(spec, "//")
	switch {
	case anchored:
		pat = spec[2:]
	case strings.HasPrefix(spec, "~/"), strings.HasPrefix(spec, "./"):
		pat = spec[2:]
	default:
		pat = strings.TrimPrefix(spec, "/")
	}
	pat = strings.TrimSuffix(pat, "/") + "/**"
	if !anchored {
		pat = "**/" + pat
	}
	ok, err := doublestar.Match(pat, strings.TrimPrefix(path.Clean(p), "/"))
	return ok || err != nil
}
