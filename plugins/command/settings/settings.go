package settings

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Settings is the "hooks" object of an agent's settings file, as Claude
// Code, Codex and Gemini CLI write it: for each event key (an [Event]'s
// name or alias), its matcher groups, each with its command hooks.
//
//	{"hooks": {"PreToolUse": [{"matcher": "delete_.*", "hooks": [{"type": "command", "command": "/srv/hooks/guard.sh", "timeout": 5}]}]}}
type Settings map[string][]Group

// Group is one matcher group: a matcher and the hooks it selects.
type Group struct {
	// Matcher selects what the event's hooks run for (see the command
	// package's doc); "" and "*" select everything.
	Matcher string
	// Hooks run in order.
	Hooks []Hook
}

// Hook is one hook: the agents' handler fields (Type, Command, Timeout,
// Description, If, and an http hook's URL and headers or a prompt
// hook's Prompt and Model) and
// hookflow's own. In a settings file its keys are type, command, timeout
// (seconds; milliseconds in Gemini CLI's files), name, description, if,
// shell, runner, protocol ("claude" or "ollm"), onFailure ("agent",
// "closed" or "open"), failClosed, maxConcurrent, rateLimit ({"calls": n,
// "per": seconds}), cooldown (seconds), env (an object of strings),
// maxOutputBytes, toolNames, url, headers, allowedEnvVars, prompt and
// model, and server, tool, input and sendArguments; the agents'
// statusMessage is accepted and ignored.
type Hook struct {
	// Type is "command" ("" means "command" in Go), "http", "prompt" or
	// "mcp_tool"; "agent" hooks are refused.
	Type string
	// Command is the command line (see the command package's doc, "Processes"): a
	// script, an interpreter of [command.Config.Interpreters] and its script, or a
	// program on PATH, with its arguments, after NAME=value assignments;
	// without a shell unless Shell is set.
	Command string
	// Description says what the hook is for (Gemini CLI's and Claude Code
	// plugins' field); hookflow logs it with the hook's failures.
	Description string
	// If is Claude Code's per-hook condition, one rule in its
	// permission-rule syntax: Tool, or Tool(specifier) with a Bash
	// command pattern (Bash(git *)), a path pattern of Read, Edit or
	// Write (Edit(*.ts)), WebFetch(domain:host) or Tool(param:value). The
	// hook runs only for calls the rule matches, read from the arguments
	// as the hook's script knows them (ToolNames); what the rule cannot
	// read runs the hook. See docs/command-hooks.md, "The if condition".
	If string
	// Shell lets the command run through a shell, as the agent's
	// "shell" names it: "bash" (bash, else sh) runs a line that holds
	// shell syntax (pipelines, lists, substitutions…) through it, and
	// "powershell" runs every line through PowerShell (pwsh); "" runs no
	// shell. Its trust covers the exact command line and the shell. In
	// a settings file, "shell": true is "bash" and false is "".
	Shell string
	// Args makes the hook Claude Code's exec form: Command is a program
	// (on PATH, or a path) and Args its arguments, run without a shell,
	// each element as written but for ${CLAUDE_PLUGIN_ROOT} and
	// ${CLAUDE_PROJECT_DIR}, which are filled in. Its trust covers the
	// program and the whole argv.
	Args []string
	// Cwd is the command's working directory, relative to the project
	// directory and inside it: GitHub Copilot's "cwd". "" is the project
	// directory.
	Cwd string
	// Runner lets the command be a runner that fetches the code it runs
	// (npx, uvx, uv run…), which no hash can cover.
	Runner bool
	// Timeout bounds the process; 0 uses [command.Config.Timeout].
	Timeout time.Duration
	// Name names the hook in hook IDs, logs and audit records; "" derives
	// it from the script's file name. Letters, digits, '.', '_' and '-'.
	Name string
	// Protocol is how the hook talks: [Claude] (default), [OLLM] or
	// [Copilot] (a GitHub Copilot file's hooks).
	Protocol Protocol
	// OnFailure is what the hook's failures do ([FailureRule]): the
	// default is the configuration's ([command.Config.FailClosed]), which is the
	// agents' rule unless set. In a settings file, "onFailure": "agent",
	// "closed" or "open", or "failClosed": true (closed) or false
	// (agent). A failure that does not block is in the run's
	// [flows.Context.Failures], and so in the audit plugin's record.
	OnFailure FailureRule
	// MaxConcurrent caps how many processes of this hook run at once; 0
	// uses [command.Config.MaxConcurrent]. A run waits for a free slot until the
	// hook's timeout, then fails.
	MaxConcurrent int
	// RateLimit caps how often the hook runs per session.
	RateLimit RateLimit
	// Cooldown is the least time between two runs of the hook in one
	// session; a run inside it fails.
	Cooldown time.Duration
	// Env adds variables to the hook's environment.
	Env map[string]string
	// MaxOutputBytes caps stdout and stderr, each; 0 uses
	// [command.Config.MaxOutputBytes].
	MaxOutputBytes int
	// ToolNames maps the server's tools to the names this hook's script
	// and matcher expect, over [command.Config.ToolNames].
	ToolNames ToolNames

	// The fields of the hooks that run no process: an "http" hook POSTs
	// the event's JSON to URL and reads the answer from the response's
	// body, as a command hook's stdout; a "prompt" hook asks the client's
	// model, through MCP sampling, to judge the event by Prompt.
	//
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

	// The fields of an "mcp_tool" hook, which calls a tool of an MCP
	// server and reads the text of its answer as a command hook's stdout.
	//
	// Server is the MCP server as the agent knows it: this server's
	// [command.Config.ServerName], or a name [command.Config.MCPServers]
	// maps to the prefix of its tools here (a gateway's upstream).
	Server string
	// Tool is the tool's name on that server, without a prefix.
	Tool string
	// Input is the tool's arguments, a JSON object. A string value
	// "${path}" is replaced by the value at path of the event's JSON
	// (${tool_input.file_path}, ${cwd}); ${path} within a longer string
	// by its text.
	Input map[string]any
	// SendArguments lets Input name the call's own data (tool_input,
	// tool_response, prompt…), which then goes to the tool: hookflow's
	// opt-in for that data flow. Without it, only the event's name, the
	// tool's name, cwd and the session's ID may be filled in.
	SendArguments bool
}

// RateLimit allows Calls runs per Per, per hook and session; the zero
// value is no limit. A run over the limit fails.
type RateLimit struct {
	Calls int
	Per   time.Duration
}

// ConfigError is one problem of the hook settings: where it is (a file
// position, or a path in [command.Config.Settings]) and what is wrong.
type ConfigError struct {
	// File, Line and Col locate the problem in a settings file; File is ""
	// for settings given as a Go value.
	File      string
	Line, Col int
	// Path names the setting, e.g. hooks.PreToolUse[0].hooks[1].command.
	Path string
	Msg  string
}

// Error renders the problem as "file:line:col: path: message", or as
// "Config.Settings: path: message" for Go settings.
func (e *ConfigError) Error() string {
	where := "Config.Settings"
	if e.File != "" {
		where = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
	}
	if e.Path == "" {
		return where + ": " + e.Msg
	}
	return where + ": " + e.Path + ": " + e.Msg
}

// ToolName is how a hook's script knows one of the server's tools: a
// script written for an agent's built-in tools reads tool_name "Bash" and
// tool_input.command where the server has run_command and its cmd.
type ToolName struct {
	// Name is the tool's name for the script and for matchers, e.g.
	// "Bash".
	Name string `yaml:"name"`
	// Arguments renames the tool's top-level arguments for the script:
	// the server's name to the script's, e.g. {"cmd": "command"}.
	// Arguments not named keep their names. An updatedInput is renamed
	// back before the tool's schema checks it.
	Arguments map[string]string `yaml:"arguments"`
}

// ToolNames maps the server's tool names to what scripts expect. In a
// settings file, a hook's "toolNames": {"run_command": {"name": "Bash",
// "arguments": {"cmd": "command"}}}; [command.Config.ToolNames] is the same for
// every hook, and a hook's entry for a tool replaces it.
type ToolNames map[string]ToolName

// Check returns what is wrong with m, in the order of its keys, each a
// problem whose Path is relative to m, such as "shell.arguments.cmd".
func (m ToolNames) Check() []ConfigError {
	var bad []ConfigError
	for _, tool := range slices.Sorted(maps.Keys(m)) {
		tn := m[tool]
		if tool == "" || tn.Name == "" {
			bad = append(bad, ConfigError{Path: tool, Msg: "maps a tool to a name: both must be given"})
		}
		seen := map[string]string{}
		for _, from := range slices.Sorted(maps.Keys(tn.Arguments)) {
			to := tn.Arguments[from]
			if from == "" || to == "" {
				bad = append(bad, ConfigError{Path: tool + ".arguments." + from, Msg: "renames an argument: both names must be given"})
			} else if other, dup := seen[to]; dup {
				bad = append(bad, ConfigError{Path: tool + ".arguments." + from, Msg: fmt.Sprintf("renames %q to %q, as %q is: each script name once", from, to, other)})
			}
			seen[to] = from
		}
	}
	return bad
}
