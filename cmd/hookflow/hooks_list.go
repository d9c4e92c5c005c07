package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	cmdhooks "github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

func hooksListVerb() hooksVerb {
	return hooksVerb{name: "list", summary: "list the trust store, or a settings file's command hooks and their trust", run: runHooksList}
}

const listUsage = `hookflow hooks list [-store FILE] [-dir DIR] [-interpreters LIST] [-agent A] [-shell LIST] [-runners LIST] [-lenient] [SETTINGS_FILE|PLUGIN_DIR]

Without SETTINGS_FILE, lists the trusted scripts of the store. With it,
lists each command hook the server would run, and whether the store
trusts it ("trusted"), not ("untrusted"), or trusted another content of
its script ("changed"). Exits 1 when a hook is not trusted: the server
would refuse to start.`

func runHooksList(args []string, io stdio) int {
	fs := newFlags("list", listUsage, io.err)
	var sf storeFlags
	sf.register(fs, true)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return exitUsage
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	if fs.NArg() == 0 {
		store, err := trust.Load(sf.store)
		if err != nil {
			fmt.Fprintf(io.err, "hookflow hooks list: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(tw, "SCRIPT\tSHA256\tINTERPRETER\tFORM\tTRUSTED AT\n")
		for _, e := range store.Entries {
			interp := e.Interpreter
			if interp == "" {
				interp = "-"
			}
			// A shell line is its line; a program's and a runner's line is
			// part of what is trusted; a runner's fetched code is not. An
			// http hook is its URL; a prompt hook its event, name and
			// prompt; an mcp_tool hook its server, tool, input and
			// whether it sends the call's data.
			what, form := e.Script, e.Form.String()
			switch e.Form {
			case trust.FormShell:
				what = fmt.Sprintf("%q", e.Line)
			case trust.FormProgram:
				what += fmt.Sprintf(" as %q", e.Line)
			case trust.FormRunner:
				what += fmt.Sprintf(" as %q", e.Line)
				form = "runner: fetches code at run time, not covered"
			case trust.FormPrompt:
				what += fmt.Sprintf(" %q", strings.TrimPrefix(e.Command, "prompt: "))
			case trust.FormMCPTool:
				what += " with " + e.Line
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", what, short(e.SHA256), interp, form, e.TrustedAt.Format("2006-01-02 15:04:05Z07:00"))
		}
		tw.Flush()
		return exitOK
	}
	cfg, err := sf.config(fs.Arg(0), io.err)
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks %s: %v\n", fs.Name()[len("hookflow hooks "):], err)
		return exitUsage
	}
	hooks, err := cmdhooks.Inspect(cfg)
	if err != nil {
		fmt.Fprintf(io.err, "hookflow hooks list: %v\n", err)
		return exitFailed
	}
	code, retrust := exitOK, ""
	fmt.Fprintf(tw, "TRUST\tEVENT\tMATCHER\tNAME\tCOMMAND\tWHERE\n")
	for _, h := range hooks {
		matcher := h.Matcher
		if matcher == "" {
			matcher = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", h.Trust, h.Key, matcher, h.Name, h.Command, h.Where)
		if h.Trust != trust.Trusted {
			code, retrust = exitFailed, h.TrustCommand(sf.store, h.File)
		}
	}
	tw.Flush()
	if code != exitOK {
		fmt.Fprintf(io.err, "some hooks are not trusted; review what they run, then run: %s\n", retrust)
	}
	return code
}
