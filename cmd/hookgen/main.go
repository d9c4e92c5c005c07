package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/engine"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/explain"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/declare"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/guidance"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/interceptor"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/load"
	"github.com/hookflow/hookflow/flows"
)

func main() {
	// A run allocates a few tens of megabytes, mostly export data, and then
	// exits: collecting less often saves a few milliseconds.
	debug.SetGCPercent(400)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // directive errors, or stale output with -check
	exitUsage  = 2 // usage error or load failure
)

const usage = `usage: hookgen [-check | -explain <flow> | -list] [-tags list] [-v] [packages]

hookgen generates hookgen_gen.go in every package whose files hold
directives (//mcp: and //hook: lines; packages default to "."), and removes
it from packages that have none left. Use it from go generate:

	//go:generate go tool hookgen

Exit status: 0 when all is well; 1 for directive errors, or stale output
with -check; 2 for a usage error or packages that fail to load.

Flags:
`

// run is the whole command, with its output streams; it returns the exit
// code.
// extensions returns hookgen's extensions (package ext), in the order
// -list shows their directives and the generated file holds their code.
func extensions() []ext.Extension {
	return []ext.Extension{guidance.New(), declare.New(), interceptor.New()}
}

func run(args []string, stdout, stderr io.Writer) int {
	return runIn("", nil, args, stdout, stderr)
}

// runIn is run in the directory dir ("" for the current one) with the go
// command's environment env (nil for os.Environ()).
func runIn(dir string, env []string, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("hookgen", flag.ContinueOnError)
	fset.SetOutput(stderr)
	check := fset.Bool("check", false, "write nothing; print a unified diff of the stale generated files and exit 1 if any")
	list := fset.Bool("list", false, "print every directive with its keys and help")
	explainFlow := fset.String("explain", "", "print the ordered hook plan of a `flow` (e.g. tools:call-tool) per entity")
	tags := fset.String("tags", "", "comma-separated build `tags` to load packages with (hookgen adds its own: hookgen)")
	verbose := fset.Bool("v", false, "print the files written and the time each phase took")
	printUsage := func(w io.Writer) {
		fmt.Fprint(w, usage)
		fset.SetOutput(w)
		fset.PrintDefaults()
		fset.SetOutput(stderr)
	}
	fset.Usage = func() {} // printed below, where it belongs
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// Asked for: the usage is the answer, on stdout.
			printUsage(stdout)
			return exitOK
		}
		printUsage(stderr)
		return exitUsage
	}
	if *list {
		if *check || *explainFlow != "" || fset.NArg() > 0 {
			fmt.Fprintln(stderr, "hookgen: -list takes no packages and no other mode flag")
			return exitUsage
		}
		reg, err := ext.Registry(extensions())
		if err != nil {
			fmt.Fprintf(stderr, "hookgen: internal error: %v\n", err)
			return exitFailed
		}
		fmt.Fprint(stdout, reg.List())
		return exitOK
	}
	var flow flows.ID
	if *explainFlow != "" {
		if *check {
			fmt.Fprintln(stderr, "hookgen: -check and -explain cannot be used together")
			return exitUsage
		}
		id, err := flows.Parse(*explainFlow)
		if err != nil {
			msg := fmt.Sprintf("hookgen: -explain: unknown flow %q", *explainFlow)
			if s, ok := directive.SuggestFlow(*explainFlow); ok {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += " (flows: " + explain.Flows() + ")"
			}
			fmt.Fprintln(stderr, msg)
			return exitUsage
		}
		flow = id
	}

	start := time.Now()
	if dir == "" {
		dir, _ = os.Getwd()
	}
	rel := relativizer(dir)
	goflags := os.Getenv("GOFLAGS")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			goflags = v
		}
	}
	res, err := engine.Run(engine.Options{
		Dir:        dir,
		Env:        env,
		Patterns:   fset.Args(),
		Tags:       buildTags(*tags, goflags),
		Extensions: extensions(),
	})
	if err != nil {
		fmt.Fprintf(stderr, "hookgen: %v\n", err)
		return exitUsage
	}
	for _, d := range res.Diags {
		d.Pos.Filename = rel(d.Pos.Filename)
		d.Ref.Filename = rel(d.Ref.Filename)
		fmt.Fprintln(stderr, d.String())
	}
	loadFailed := false
	for _, p := range res.Packages {
		for _, e := range p.LoadErrors {
			loadFailed = true
			fmt.Fprintln(stderr, relError(e, rel))
		}
	}
	code := exitOK
	if res.HasErrors() {
		code = exitFailed
	}

	switch {
	case flow != "":
		if code == exitOK && !loadFailed {
			explain.Header(stdout, flow, *verbose)
			n := 0
			for _, p := range res.Packages {
				if p.Model != nil {
					explain.Package(stdout, p.Model, flow, *verbose, ext.Positioners(extensions())...)
					n++
				}
			}
			if n == 0 {
				fmt.Fprintln(stdout, "\nno package with directives")
			}
		}
	case *check:
		stale := 0
		for _, p := range res.Packages {
			if !p.Stale() {
				continue
			}
			stale++
			name := filepath.ToSlash(rel(p.File))
			from, to := "a/"+name, "b/"+name
			if !p.OldExists {
				from = "/dev/null"
			}
			if p.New == nil {
				to = "/dev/null"
			}
			fmt.Fprint(stdout, unified(from, to, p.Old, p.New))
		}
		if stale > 0 {
			fmt.Fprintf(stderr, "hookgen: %s stale: run go generate\n", plural(stale, "generated file"))
			code = exitFailed
		}
	default:
		changes, err := res.Write()
		if err != nil {
			fmt.Fprintf(stderr, "hookgen: %v\n", err)
			loadFailed = true
		}
		if *verbose {
			for _, c := range changes {
				what := "wrote"
				if c.Removed {
					what = "removed"
				}
				fmt.Fprintf(stderr, "hookgen: %s %s\n", what, rel(c.File))
			}
		}
	}
	if *verbose {
		st := res.Stats
		fmt.Fprintf(stderr, "hookgen: %s listed, %d with directives; list %s, scan %s, load+typecheck %s, analyze %s, render %s, write %s; total %s\n",
			plural(st.Packages, "package"), st.Candidates, ms(st.List), ms(st.Scan), ms(st.Types), ms(st.Analyze), ms(st.Render), ms(st.Write), ms(time.Since(start)))
	}
	if loadFailed {
		return exitUsage
	}
	return code
}

// plural returns "1 package", "2 packages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

// buildTags returns the -tags value and the tags of a -tags flag in GOFLAGS
// (the go command would drop those, since hookgen passes -tags itself).
func buildTags(flagTags, goflags string) []string {
	var out []string
	add := func(list string) {
		for _, t := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
			if t != load.Tag && !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	for _, f := range strings.Fields(goflags) {
		if v, ok := strings.CutPrefix(strings.TrimLeft(f, "-"), "tags="); ok {
			add(v)
		}
	}
	add(flagTags)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// relativizer returns a function that shows paths under dir relative to it.
func relativizer(dir string) func(string) string {
	return func(path string) string {
		if dir == "" || !filepath.IsAbs(path) {
			return path
		}
		r, err := filepath.Rel(dir, path)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return path
		}
		return r
	}
}

// relError renders a load error with its file relative to the working
// directory.
func relError(e load.Error, rel func(string) string) string {
	if p, ok := load.Position(e.Pos); ok {
		p.Filename = rel(p.Filename)
		return p.String() + ": " + e.Msg
	}
	return "hookgen: " + e.String()
}
