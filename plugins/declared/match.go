package declared

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ToolCall is what a client knows of a tool call when it fires a tool
// event: what a [Matcher] matches and what the tool template variables
// expand to.
type ToolCall struct {
	// Server is the name of the MCP server that provides the tool, "" for
	// a tool of the agent itself (Bash, Edit…).
	Server string
	// Name is the tool's name as the agent calls it.
	Name string
	// Aliases are other names of the same tool, which ToolName matches
	// as well: for a coding agent's own tool, the names the other agents
	// give it (package declared/agent fills them in, e.g. "Bash" for
	// Gemini CLI's run_shell_command).
	Aliases []string
	// Input is the call's arguments as JSON.
	Input json.RawMessage
	// Output is the call's result as JSON; nil before the call.
	Output json.RawMessage
}

// Matches reports whether d fires at event ev for call (nil outside tool
// events): the events are equal and d's matcher, if any, matches call. A
// declaration with a matcher never fires without a call.
func (d *Declaration) Matches(ev Event, call *ToolCall) bool {
	if d.Event != ev {
		return false
	}
	if d.Matcher.IsZero() {
		return true
	}
	return call != nil && d.Matcher.Match(call)
}

// Match reports whether every field m sets matches call.
//
// Coding agents name the tools of an MCP server mcp__<server>__<tool>
// ([SplitAgentName]). For such a name, ToolName also matches when its glob
// matches <tool> alone, so a server's declaration for its own tool
// (tool_name "get_weather") fires for the agent's
// "mcp__weather__get_weather"; and ToolServer is compared with <server>
// when call.Server is empty. It also matches any of call.Aliases.
//
// InputContains is searched in call.Input as sent and, failing that, in
// its compact form (no insignificant whitespace), so the spacing an agent
// serializes with does not matter.
func (m *Matcher) Match(call *ToolCall) bool {
	if m == nil {
		return true
	}
	agentServer, agentTool, isAgent := SplitAgentName(call.Name)
	if m.ToolName != "" && !Glob(m.ToolName, call.Name) && !(isAgent && Glob(m.ToolName, agentTool)) && !m.matchesAlias(call.Aliases) {
		return false
	}
	if m.ToolServer != "" {
		server := call.Server
		if server == "" && isAgent {
			server = agentServer
		}
		if server != m.ToolServer {
			return false
		}
	}
	if m.InputContains != "" && !inputContains(call.Input, m.InputContains) {
		return false
	}
	return true
}

func (m *Matcher) matchesAlias(aliases []string) bool {
	for _, a := range aliases {
		if Glob(m.ToolName, a) {
			return true
		}
	}
	return false
}

func inputContains(input json.RawMessage, s string) bool {
	if bytes.Contains(input, []byte(s)) {
		return true
	}
	if !spaced(input) {
		return false // already compact
	}
	var buf bytes.Buffer
	if json.Compact(&buf, input) != nil {
		return false
	}
	return bytes.Contains(buf.Bytes(), []byte(s))
}

// spaced reports whether the JSON text b has whitespace outside its
// strings, which its compact form would not.
func spaced(b []byte) bool {
	in, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return true
		}
	}
	return false
}

// SplitAgentName splits a coding agent's name for an MCP server's tool,
// mcp__<server>__<tool>, into the server and the tool. ok is false for
// any other name. The server's name ends at the first "__" after the
// prefix.
func SplitAgentName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// Glob reports whether name matches pattern, in which '*' matches any run
// of characters (including none and '/') and '?' exactly one character;
// every other character matches itself. It does not allocate.
func Glob(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]):
			if pattern[p] == '?' {
				n += runeLen(name[n:])
			} else {
				n++
			}
			p++
		case star >= 0:
			p = star + 1
			mark += runeLen(name[mark:])
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// runeLen returns the byte length of the UTF-8 sequence s starts with (1
// for an invalid byte), so '?' matches one character, not one byte.
func runeLen(s string) int {
	for i := 1; i < len(s) && i < 4; i++ {
		if s[i]&0xC0 != 0x80 {
			return i
		}
	}
	return min(len(s), 4)
}
