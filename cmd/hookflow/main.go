package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// Exit codes shared by every command.
const (
	exitOK     = 0
	exitFailed = 1 // the command ran and found a problem
	exitUsage  = 2 // usage error
)

// stdio is a command's standard streams; tests pass buffers.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand of hookflow.
type command struct {
	// name is the word that selects the command.
	name string
	// summary is one line for "hookflow help".
	summary string
	// run runs the command with the arguments after its name and returns
	// the exit code.
	run func(args []string, io stdio) int
}

// commands lists hookflow's subcommands in the order help prints them.
func commands() []command {
	return []command{
		hooksCommand(),
		gatewayCommand(),
	}
}

// run is the whole program: it dispatches args to a command and returns
// the exit code.
func run(args []string, io stdio) int {
	if len(args) == 0 {
		printUsage(io.err)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			printUsage(io.out)
			return exitOK
		}
		if c, ok := lookup(rest[0]); ok {
			return c.run([]string{"-h"}, io)
		}
		fmt.Fprintf(io.err, "hookflow help: unknown command %q\n", rest[0])
		return exitUsage
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(io.err, "hookflow: unknown command %q%s\nRun 'hookflow help' for the list.\n", name, didYouMean(name, commandNames()))
		return exitUsage
	}
	return c.run(rest, io)
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

func printUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("usage: hookflow <command> [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'hookflow help <command>' or 'hookflow <command> -h' for a command's usage.\n")
	io.WriteString(w, b.String())
}
