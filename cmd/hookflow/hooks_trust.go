package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	cmdhooks "github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

func hooksTrustVerb() hooksVerb {
	return hooksVerb{name: "trust", summary: "trust the command hooks of a settings file, or one script", run: runHooksTrust}
}

const trustUsage = `hookflow hooks trust [-store FILE] [-dir DIR] [-interpreters LIST] [-agent A] [-shell LIST] [-runners LIST] [-send-arguments LIST] [-lenient] SETTINGS_FILE|PLUGIN_DIR [NAME...]
       hookflow hooks trust [-store FILE] -script PATH [-interpreter PATH]

Trusts each command hook of SETTINGS_FILE, or of a Claude Code plugin's
directory (or only those named NAME): the trust store records what it
runs (its script's SHA-256 and interpreter; a program's SHA-256 and the
command line; a shell line's text; an mcp_tool hook's server, tool,
input and whether it sends the call's data), and the server runs the hook as long
as that stays the same. -agent, -shell, -runners, -send-arguments and -lenient read the
file as the server's import does. Review the scripts first. With -script, trusts one script as a server with hooks in Go
settings names it.`

func runHooksTrust(args []string, io stdio) int {
	fs := newFlags("trust", trustUsage, io.err)
	var sf storeFlags
	sf.register(fs, true)
	script := fs.String("script", "", "trust this script `path` instead of a settings file's hooks")
	interp := fs.String("interpreter", "", "with -script: the absolute `path` of the interpreter that runs it (none: it runs directly)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *script != "" {
		if fs.NArg() > 0 {
			fmt.Fprintln(io.err, "hookflow hooks trust: -script takes no settings file")
			return exitUsage
		}
		return trustScript(sf.store, *script, *interp, io)
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return exitUsage
	}
	cfg, err := sf.config(fs.Arg(0), io.err)
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks %s: %v\n", fs.Name()[len("hookflow hooks "):], err)
		return exitUsage
	}
	hooks, err := cmdhooks.Inspect(cfg)
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks trust: %v\n", err)
		return exitFailed
	}
	names := fs.Args()[1:]
	for _, n := range names {
		if !slices.ContainsFunc(hooks, func(h cmdhooks.HookInfo) bool { return h.Name == n }) {
			var all []string
			for _, h := range hooks {
				all = append(all, h.Name)
			}
			fmt.Fprintf(io.err, "hookflow hooks trust: %s has no command hook named %q%s\n", fs.Arg(0), n, didYouMean(n, all))
			return exitFailed
		}
	}
	if len(names) > 0 {
		hooks = slices.DeleteFunc(hooks, func(h cmdhooks.HookInfo) bool { return !slices.Contains(names, h.Name) })
	}
	if len(hooks) == 0 {
		fmt.Fprintf(io.err, "hookflow hooks trust: %s has no command hook an MCP server runs\n", fs.Arg(0))
		return exitFailed
	}
	err = trust.Update(sf.store, func(s *trust.Store) (bool, error) {
		changed := false
		for _, h := range hooks {
			verb := "already trusted"
			if s.Trust(h.Identity, h.Command, time.Now()) {
				verb, changed = "trusted", true
			}
			fmt.Fprintf(io.out, "%s: %s %s: %s\n", verb, h.Key, h.Name, describeIdentity(h.Identity))
		}
		return changed, nil
	})
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks trust: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(io.out, "trust store: %s\n", sf.store)
	return exitOK
}

// trustScript trusts one script, run directly or by interp.
func trustScript(store, script, interp string, io stdio) int {
	id, err := trust.IdentityOf(script, interp)
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks trust: %v\n", err)
		return exitFailed
	}
	err = trust.Update(store, func(s *trust.Store) (bool, error) {
		cmd := id.Script
		if id.Interpreter != "" {
			cmd = filepath.Base(id.Interpreter) + " " + id.Script
		}
		return s.Trust(id, cmd, time.Now()), nil
	})
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks trust: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(io.out, "trusted: %s\ntrust store: %s\n", describeIdentity(id), store)
	return exitOK
}

func describeIdentity(id trust.Identity) string { return id.String() }
