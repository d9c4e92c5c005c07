package agent

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

// DefaultTimeout bounds one emit: connecting to the server, reading its
// declarations and calling its context tools.
const DefaultTimeout = 30 * time.Second

// EmitConfig configures [Emit].
type EmitConfig struct {
	Agent Agent
	// Server is the server's streamable HTTP URL or command line.
	Server string
	// Name is the server's name in labels and records; "" uses the name
	// the server gives itself.
	Name string
	// Project is {project_name}; "" uses the base name of the hook
	// input's cwd.
	Project string
	// Trust is how far the server is trusted (default client.Trusted:
	// required declarations fire as important).
	Trust client.Trust
	// MaxBytes caps the declared text of one event (default
	// client.DefaultMaxBytes).
	MaxBytes int
	// Timeout bounds the whole emit (default DefaultTimeout); each context
	// tool call gets at most a third of it.
	Timeout time.Duration
	// Stderr receives the server command's standard error; nil discards it.
	Stderr io.Writer
	// Audit, when set, receives the client's audit records.
	Audit func(client.Record)
}

// Emit is one run of a command hook: it reads the agent's hook input from
// stdin, connects to the server as a client supporting the event the input
// carries, fires the server's declarations at it, and writes the agent's
// JSON output, with the declared text on the channel the agent reads
// ([Agent.Output]), to stdout. When nothing is to be said it writes {}.
// A Stop or AfterAgent input while the agent is already continuing for a
// stop hook writes {} without connecting.
//
// An error means nothing was written; the caller should exit with a status
// other than 2, which the agents take as a non-blocking failure (2 would
// block the agent's action).
func Emit(ctx context.Context, cfg EmitConfig, stdin io.Reader, stdout io.Writer) error {
	in, err := ReadInput(stdin)
	if err != nil {
		return err
	}
	f, err := cfg.Agent.Firing(in)
	if err != nil {
		return err
	}
	out := []byte("{}")
	if b, _ := cfg.Agent.bindingOf(in.HookEventName); !(b.channel == stopReason && in.StopHookActive) {
		text, err := fire(ctx, cfg, in, f)
		if err != nil {
			return err
		}
		if out, err = cfg.Agent.Output(in, text); err != nil {
			return err
		}
	}
	_, err = stdout.Write(append(out, '\n'))
	return err
}

// fire connects to the server and returns the rendered text of f.
func fire(ctx context.Context, cfg EmitConfig, in *Input, f client.Firing) (string, error) {
	timeout := cmp.Or(cfg.Timeout, DefaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	cs, err := Connect(ctx, cfg.Server, stderr, f.Event)
	if err != nil {
		return "", err
	}
	defer cs.Close()
	name := cfg.Name
	if name == "" {
		if si := cs.InitializeResult().ServerInfo; si != nil {
			name = si.Name
		}
	}
	name = cmp.Or(name, "server")
	project := cfg.Project
	if project == "" && in.Cwd != "" {
		project = filepath.Base(in.Cwd)
	}
	trust := cfg.Trust
	if trust == client.Untrusted {
		trust = client.Trusted
	}
	hooks, err := client.New(client.Config{
		Project:     project,
		Trust:       map[string]client.Trust{name: trust},
		MaxBytes:    cfg.MaxBytes,
		ToolTimeout: timeout / 3,
		Audit:       cfg.Audit,
	})
	if err != nil {
		return "", err
	}
	if err := hooks.Add(ctx, name, cs); err != nil {
		return "", err
	}
	return Render(hooks.Fire(ctx, f)), nil
}

// ExportConfig configures [Export].
type ExportConfig struct {
	Agent Agent
	// Server is the server's streamable HTTP URL or command line.
	Server string
	// Command is the command line the hooks run: hookflow hooks emit with
	// the same server.
	Command string
	// Argv, when set, is the same command as its words: Claude Code's
	// hooks then run it in the exec form ("command" the program, "args"
	// the rest), with no shell; the other agents run Command.
	Argv []string
	// Name names the hooks where the agent shows names (Gemini CLI);
	// "" uses "hookflow-" and the name the server gives itself.
	Name string
	// Timeout bounds one run of the command, as the agent enforces it
	// (default DefaultTimeout plus 5 seconds, so that emit's own bound
	// comes first).
	Timeout time.Duration
	// Stderr receives the server command's standard error; nil discards it.
	Stderr io.Writer
}

// Export connects to the server as a client supporting the events the
// agent can carry, and returns the agent's hook settings for the
// declarations it is sent, the declarations left out (invalid ones, or
// events the agent has no hook for, which a server that ignores
// negotiation may send) and the server's name.
func Export(ctx context.Context, cfg ExportConfig) (Settings, []Skipped, string, error) {
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	cs, err := Connect(ctx, cfg.Server, stderr, cfg.Agent.Events()...)
	if err != nil {
		return Settings{}, nil, "", err
	}
	defer cs.Close()
	name := ""
	if si := cs.InitializeResult().ServerInfo; si != nil {
		name = si.Name
	}
	decls, errs, ok := declared.ServerDeclarations(cs.InitializeResult().Capabilities)
	if !ok {
		return Settings{}, nil, name, fmt.Errorf("%s declares no hooks (no experimental.%s in its capabilities)", cfg.Server, declared.CapabilityKey)
	}
	var valid []declared.Declaration
	var skipped []Skipped
	var index []int
	for i, d := range decls {
		if errs[i] != nil {
			skipped = append(skipped, Skipped{Index: i, Declaration: d, Why: errs[i].Error()})
			continue
		}
		valid = append(valid, d)
		index = append(index, i)
	}
	s, more := cfg.Agent.Settings(valid, cfg.Command, cmp.Or(cfg.Name, "hookflow-"+name), cmp.Or(cfg.Timeout, DefaultTimeout+5*time.Second))
	if cfg.Agent == Claude && len(cfg.Argv) > 0 {
		s.exec(cfg.Argv)
	}
	for _, sk := range more {
		sk.Index = index[sk.Index]
		skipped = append(skipped, sk)
	}
	return s, skipped, name, nil
}
