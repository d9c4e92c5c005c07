package command

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/settings"
)

// matcher selects the calls a group's hooks run for, from the tool name,
// prompt name, resource URI or session source (see the package doc,
// "Matchers").
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
	// cond is a hook's "if" condition, nil for none.
	cond *ifRule
}

// isNameList reports whether s is, for Claude Code, a name or a list of
// names: only letters, digits, '_', '-', spaces, ',' and '|'.
func isNameList(s string) bool {
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-, |") == ""
}

// splitNames splits a Claude Code name list at '|' and ',', spaces
// trimmed.
func splitNames(s string) []string {
	var names []string
	for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// compileMatcher reads a group's matcher as agent's reference says for
// event ev.
func compileMatcher(s string, agent settings.Agent, ev settings.Event) (matcher, error) {
	switch {
	case s == "" || s == "*":
		return matcher{all: true}, nil
	case agent == settings.AgentCopilot:
		// GitHub Copilot anchors its matchers: the whole name matches.
		re, err := regexp.Compile(`^(?:` + s + `)$`)
		if err != nil {
			return matcher{}, fmt.Errorf("%q is not a valid regular expression: %v", s, err)
		}
		return matcher{re: re}, nil
	case agent == settings.AgentGemini && ev == settings.SessionStart:
		// Gemini CLI matches lifecycle events by exact string.
		return matcher{names: []string{s}}, nil
	case agent != settings.AgentGemini && isNameList(s):
		return matcher{names: splitNames(s)}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("%q is not a valid regular expression: %v", s, err)
	}
	return matcher{re: re}, nil
}

func (m matcher) match(subject string) bool {
	if m.cond != nil && !m.cond.selects(subject) {
		return false
	}
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(subject)
	}
	return slices.Contains(m.names, subject)
}

// unmatched returns the matcher's text when it selects none of tools, for
// the start-up warning; "" when it selects one, or everything.
func (m matcher) unmatched(text string, tools []string) string {
	if m.all || slices.ContainsFunc(tools, m.match) {
		return ""
	}
	if m.re != nil && strings.Contains(text, ",") {
		return text + ` (read as a regular expression: in this file's format, names are separated by "|")`
	}
	return text
}

// subjectName is the name a tool has for matchers: its own, or the agents'
// name of an MCP tool with Config.AgentToolNames.
func (p *Plugin) subjectName(tool string) string {
	if p.cfg.AgentToolNames {
		return "mcp__" + p.cfg.ServerName + "__" + tool
	}
	return tool
}
