package main

import (
	"fmt"
	"io"
	"strings"
)

// hooksVerb is one verb of "hookflow hooks".
type hooksVerb struct {
	name    string
	summary string
	run     func(args []string, io stdio) int
}

// hooksVerbs lists the verbs of "hookflow hooks" in the order its usage
// prints them. Each verb lives in a file of its own (hooks_<verb>.go).
func hooksVerbs() []hooksVerb {
	return []hooksVerb{
		hooksTrustVerb(),
		hooksListVerb(),
		hooksRevokeVerb(),
		exportVerb(),
		emitVerb(),
	}
}

func hooksCommand() command {
	return command{
		name:    "hooks",
		summary: "manage hooks that run outside the server's Go code",
		run:     runHooks,
	}
}

func runHooks(args []string, io stdio) int {
	verbs := hooksVerbs()
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		w, code := io.err, exitUsage
		if len(args) > 0 {
			w, code = io.out, exitOK
		}
		printHooksUsage(w, verbs)
		return code
	}
	var names []string
	for _, v := range verbs {
		if v.name == args[0] {
			return v.run(args[1:], io)
		}
		names = append(names, v.name)
	}
	fmt.Fprintf(io.err, "hookflow hooks: unknown verb %q%s\n", args[0], didYouMean(args[0], names))
	printHooksUsage(io.err, verbs)
	return exitUsage
}

func printHooksUsage(w io.Writer, verbs []hooksVerb) {
	var b strings.Builder
	b.WriteString("usage: hookflow hooks <verb> [arguments]\n\nVerbs:\n")
	for _, v := range verbs {
		fmt.Fprintf(&b, "  %-8s %s\n", v.name, v.summary)
	}
	io.WriteString(w, b.String())
}
