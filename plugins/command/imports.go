package command

import (
	"path/filepath"
	"slices"

	"github.com/hookflow/hookflow/plugins/command/settings"
)

// Import is one file of hooks a configuration loads: an agent's settings
// file, or a Claude Code plugin's directory, with how to load it.
type Import struct {
	// File is a JSON settings file with a "hooks" object in an agent's
	// format (.claude/settings.json, .codex/hooks.json,
	// .gemini/settings.json, .github/hooks/*.json…). Set File or Plugin; a File at
	// <root>/hooks/hooks.json is read as the Plugin <root>.
	File string `yaml:"file" path:"relative"`
	// Plugin is a Claude Code plugin's directory: its hooks/hooks.json is
	// loaded, with ${CLAUDE_PLUGIN_ROOT} the directory, in commands and
	// in the hooks' environment.
	Plugin string `yaml:"plugin" path:"relative"`
	// Agent is the format the file is written in: claude, codex, gemini,
	// copilot, or auto (the default: told from the file's directory, then
	// its shape, else claude). Gemini CLI's timeouts are milliseconds.
	Agent settings.Agent `yaml:"agent"`
	// Dir is the project directory of the file's hooks (their working
	// directory and $CLAUDE_PROJECT_DIR). Default: the file's directory,
	// or its parent for an agent's own directory (.claude, .codex,
	// .gemini), or the repository of a .github/hooks file; a plugin's
	// project is the configuration's dir.
	Dir string `yaml:"dir" path:"relative"`
	// Lenient loads the file's good entries and skips each bad one (an
	// entry that cannot be read, an unknown event, a refused command…)
	// with a warning at its file:line:col. Default false: strict, any bad
	// entry refuses the whole file, and every problem is reported.
	Lenient bool `yaml:"lenient"`
	// FailClosed makes every hook of the file that sets no rule of its
	// own ("onFailure", "failClosed") fail closed ([settings.RuleClosed]): a
	// failure blocks the call, and a program the hook needs that is
	// missing at start refuses the file. Default false: such hooks follow
	// [Config.FailClosed].
	FailClosed bool `yaml:"fail_closed"`
	// Shell lists the hooks of the file that may run through a shell
	// (their name, or their path such as PreToolUse[0].hooks[1]; "*" for
	// every hook). Default none: a command that needs a shell is refused.
	Shell []string `yaml:"shell"`
	// Runners lists the runner programs the file's hooks may use (npx,
	// uvx, uv…; "*" for all), which fetch the code they run at run time:
	// no hash covers that code. Default none.
	Runners []string `yaml:"runners"`
	// SendArguments lists the mcp_tool hooks of the file (their name, or
	// their path; "*" for every one) whose input may name the call's own
	// data (${tool_input.…}), which goes to their tool: the operator's
	// opt-in for that data flow, outside the agent's file, as a hook's
	// own "sendArguments": true is inside it. Default none.
	SendArguments []string `yaml:"send_arguments"`
}

// options returns how the import's file is read.
func (imp Import) options() fileOptions {
	o := fileOptions{agent: imp.Agent, declared: imp.Agent, lenient: imp.Lenient, failClosed: imp.FailClosed,
		shell: imp.Shell, runners: imp.Runners, sendArgs: imp.SendArguments}
	if root := imp.pluginRoot(); root != "" {
		o.pluginRoot = root
		if abs, err := filepath.Abs(root); err == nil {
			o.pluginRoot = abs
		}
		if o.agent == settings.AgentAuto {
			o.agent = settings.AgentClaude
		}
	}
	return o
}

// pluginRoot returns the directory of the Claude Code plugin the import
// reads: Plugin, or the root of a File at <root>/hooks/hooks.json; ""
// for another file, GitHub Copilot's .github/hooks/hooks.json among them.
func (imp Import) pluginRoot() string {
	if imp.Plugin != "" {
		return imp.Plugin
	}
	if filepath.Base(imp.File) == "hooks.json" && filepath.Base(filepath.Dir(imp.File)) == "hooks" &&
		filepath.Base(filepath.Dir(filepath.Dir(imp.File))) != ".github" && imp.Agent != settings.AgentCopilot {
		return filepath.Dir(filepath.Dir(imp.File))
	}
	return ""
}

// file returns the settings file the import reads.
func (imp Import) file() string {
	if imp.Plugin != "" {
		return filepath.Join(imp.Plugin, "hooks", "hooks.json")
	}
	return imp.File
}

// projectDir returns the project directory of the import's hooks.
func (imp Import) projectDir(cfg Config) string {
	if imp.Dir != "" {
		if abs, err := filepath.Abs(imp.Dir); err == nil {
			return abs
		}
		return imp.Dir
	}
	if imp.pluginRoot() != "" {
		return cfg.Dir
	}
	return projectDir(imp.File)
}

// imports returns the files cfg loads: SettingsFile (with the
// configuration's project directory), then Imports.
func (c Config) imports() []Import {
	var out []Import
	if c.SettingsFile != "" {
		out = append(out, Import{File: c.SettingsFile, Dir: c.Dir})
	}
	return append(out, c.Imports...)
}

// settingsFiles returns the files cfg's hooks come from, in order.
func (c Config) settingsFiles() []string {
	var out []string
	for _, imp := range c.imports() {
		out = append(out, imp.file())
	}
	return slices.Compact(out)
}
