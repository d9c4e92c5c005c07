package agent

import "slices"

// builtin is one of the agents' own tools, under the name each agent gives
// it in its hook input and matchers. Sources, read for each agent's
// current version: Claude Code's tools reference (its names are the
// strings its hook matchers take); Gemini CLI's hooks reference, tools
// documentation and tool-name constants (grep_search was
// search_file_content, which Gemini CLI still accepts as a legacy name);
// Codex's hooks documentation, whose tool hooks see its shell as "Bash"
// and every file edit as "apply_patch", and no other built-in tool.
type builtin struct {
	// claude is Claude Code's name: the one SEP-2282's examples use, and
	// so the name this package documents for declarations.
	claude string
	// names are each agent's names for the tool, its current one first;
	// none when the agent has no such tool or its hooks do not see it.
	names [Gemini + 1][]string
}

var builtins = []builtin{
	{"Bash", [...][]string{Claude: {"Bash"}, Codex: {"Bash"}, Gemini: {"run_shell_command"}}},
	{"Read", [...][]string{Claude: {"Read"}, Gemini: {"read_file"}}},
	{"Write", [...][]string{Claude: {"Write"}, Codex: {"apply_patch"}, Gemini: {"write_file"}}},
	{"Edit", [...][]string{Claude: {"Edit"}, Codex: {"apply_patch"}, Gemini: {"replace"}}},
	{"Glob", [...][]string{Claude: {"Glob"}, Gemini: {"glob"}}},
	{"Grep", [...][]string{Claude: {"Grep"}, Gemini: {"grep_search", "search_file_content"}}},
	{"WebFetch", [...][]string{Claude: {"WebFetch"}, Gemini: {"web_fetch"}}},
	{"WebSearch", [...][]string{Claude: {"WebSearch"}, Gemini: {"google_web_search"}}},
}

// aliases holds, per agent, the other names of each of its tools: every
// name any agent gives a tool that the agent calls by the key.
var aliases = func() [Gemini + 1]map[string][]string {
	var out [Gemini + 1]map[string][]string
	for a := Claude; a <= Gemini; a++ {
		out[a] = map[string][]string{}
		for _, b := range builtins {
			for _, own := range b.names[a] {
				for _, names := range b.names {
					for _, n := range names {
						if n != own && !slices.Contains(out[a][own], n) {
							out[a][own] = append(out[a][own], n)
						}
					}
				}
			}
		}
	}
	return out
}()

// ToolNames returns the agent's names for the built-in tool that Claude
// Code calls claude (e.g. Gemini CLI's "run_shell_command" for "Bash"),
// its current name first; nil when the agent has no such tool, or its
// hooks do not see it.
func (a Agent) ToolNames(claude string) []string {
	if a < Claude || a > Gemini {
		return nil
	}
	for _, b := range builtins {
		if b.claude == claude {
			return slices.Clone(b.names[a])
		}
	}
	return nil
}

// ToolAliases returns the names the other agents give the agent's tool
// name, which a declaration's tool_name may use as well (e.g. "Bash" for
// Gemini CLI's "run_shell_command"); nil for a name that is not one of
// the agent's built-in tools. The slice is shared: do not modify it.
func (a Agent) ToolAliases(name string) []string {
	if a < Claude || a > Gemini {
		return nil
	}
	return aliases[a][name]
}
