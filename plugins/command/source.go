package command

import (
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/settings"
)

// source is where settings came from: a file as package settings read
// it, or a Go value (a File with no path), and how it is loaded.
type source struct {
	*settings.File
	opts fileOptions
}

// fileOptions are how one settings file is loaded: an [Import]'s options.
type fileOptions struct {
	agent      settings.Agent
	lenient    bool
	failClosed bool
	// shell are the hooks (names or paths, "*" for all) that may run
	// through a shell; runners the runner programs they may use.
	shell   []string
	runners []string
	// sendArgs are the mcp_tool hooks (names or paths, "*" for all)
	// whose input may name the call's data.
	sendArgs []string
	// pluginRoot is the Claude Code plugin's directory, "" for a
	// settings file.
	pluginRoot string
	// declared is the agent the import names, before detection.
	declared settings.Agent
}

// trustArgs returns the flags of "hookflow hooks trust" that read the file
// as these options do, and the file or directory it names.
func (o fileOptions) trustArgs(file string) string {
	var b strings.Builder
	if o.declared != settings.AgentAuto {
		b.WriteString(" -agent " + o.declared.String())
	}
	if len(o.shell) > 0 {
		b.WriteString(" -shell " + shellQuote(strings.Join(o.shell, ",")))
	}
	if len(o.runners) > 0 {
		b.WriteString(" -runners " + shellQuote(strings.Join(o.runners, ",")))
	}
	if len(o.sendArgs) > 0 {
		b.WriteString(" -send-arguments " + shellQuote(strings.Join(o.sendArgs, ",")))
	}
	if o.lenient {
		b.WriteString(" -lenient")
	}
	if o.pluginRoot != "" {
		file = o.pluginRoot
	}
	return b.String() + " " + shellQuote(file)
}

// names reports whether list names the hook h at path (as the import's
// shell and send_arguments do): "*", its name, or its path without the
// leading "hooks.".
func names(list []string, h settings.Hook, path string) bool {
	return slices.Contains(list, "*") || h.Name != "" && slices.Contains(list, h.Name) ||
		slices.Contains(list, strings.TrimPrefix(path, "hooks."))
}

// eventOf returns the event key names, 0 for a key of no event hookflow
// runs.
func eventOf(key string) settings.Event {
	var e settings.Event
	_ = e.UnmarshalText([]byte(key)) // e is 0 on an error
	return e
}

// sortedKeys returns the event keys of s, in agent's format, in the
// order their hooks are compiled: by event (the order of
// [settings.Events]), then by key.
func sortedKeys(s settings.Settings, agent settings.Agent) []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		if e, _ := settings.EventOf(agent, k); e.Valid() {
			return int(e)
		}
		return len(settings.Events()) + 1
	}
	slices.SortFunc(keys, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return keys
}
