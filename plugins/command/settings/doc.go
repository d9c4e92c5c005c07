// Package settings is the agents' hook settings: the "hooks" object of a
// Claude Code, Codex or Gemini CLI settings file, or of a GitHub Copilot
// hook file (.github/hooks/*.json, whose events [EventOf] reads), as Go
// values
// ([Settings], [Group], [Hook]), its events ([Event], with the flow and
// stage each runs at), the [Agent] whose format a file is written in, a
// hook's [Protocol] and [FailureRule], the tool names its script expects
// ([ToolNames]) and the [ConfigError] a problem of them is reported as;
// and the reading of such a file ([ReadFile]): strict JSON with each
// value's position, every problem at once, each at its line and column,
// into a [File] that can place the problems found later too.
//
// The command-hook plugin (plugins/command) reads settings files with it
// and runs their hooks; a program that writes or lists settings
// (cmd/hookflow) and a plugin's Go configuration use it too. Of hookflow
// it imports flows and stages, for the events' places, and
// internal/suggest, for did-you-mean: anyone may import it. Its values
// are plain data, safe to share once built.
package settings
