package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/intercept"
)

// Example is the demo: a guard on loopback HTTP, and one call per case.
func Example() {
	if err := runDemo(context.Background(), os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// the interceptors of tools/call, in run order:
	//   request  guard:no-destructive-commands (validation)
	//   request  guard:pii-redactor (mutation)
	//   response guard:pii-redactor (mutation)
	// == personal data in a request is redacted before the tool sees it: send_mail map[body:call me on +44 20 7946 0958 to:bob@example.com]
	//   isError=false sent to [email]: call me on [phone]
	//   audit decision: guard:no-destructive-commands validation request allowed
	//   audit decision: guard:pii-redactor mutation request modified
	//   audit decision: guard:pii-redactor mutation response unchanged
	// == a destructive command is refused: run_command map[command:rm -rf /]
	//   isError=true the request was blocked by an interceptor
	//   decided by: guarded/plugin:intercept/tools:call-tool/beforeExecute/guard:no-destructive-commands
	//   audit decision: guard:no-destructive-commands validation request blocked params.arguments.command: "rm -rf" is a destructive command
	// == a harmless command goes through: run_command map[command:ls]
	//   isError=false ran: ls
	//   audit decision: guard:no-destructive-commands validation request allowed
	//   audit decision: guard:pii-redactor mutation request unchanged
	//   audit decision: guard:pii-redactor mutation response unchanged
	// == personal data in a result is redacted before the client reads it: lookup_customer map[id:c-1]
	//   isError=false {"id":"c-1","name":"Ada","email":"[email]","phone":"[phone]"}
	//   audit decision: guard:no-destructive-commands validation request allowed
	//   audit decision: guard:pii-redactor mutation request unchanged
	//   audit decision: guard:pii-redactor mutation response modified
}

// The guard command, run as its own process over HTTP and over stdio,
// guards the server's calls as the in-process one does.
func TestWithTheGuardCommand(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to build examples/guard")
	}
	bin := filepath.Join(t.TempDir(), "guard")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../guard").CombinedOutput(); err != nil {
		t.Fatalf("building the guard: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "GUARD_TOKEN=t0ken")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// The guard logs (the auth plugin's warnings), then its address.
	var url string
	for sc := bufio.NewScanner(stderr); url == "" && sc.Scan(); {
		_, url, _ = strings.Cut(sc.Text(), "serving interceptors on ")
	}
	if url == "" {
		t.Fatal("the guard did not say where it serves")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	for _, guard := range []intercept.Server{
		{Name: "guard", URL: url, Token: "t0ken"},
		{Name: "guard", Command: []string{bin}},
	} {
		g, err := newServer(guard, slog.New(slog.DiscardHandler), slog.DiscardHandler)
		if err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		if _, err := g.srv.Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		for args, want := range map[string]string{"rm -rf /tmp": "the request was blocked by an interceptor", "mail ada@example.com": "ran: mail [email]"} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": args}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != want {
				t.Errorf("%v: %q, want %q", guard, got, want)
			}
		}
		cs.Close()
		g.close()
	}
	// Without the token the server does not start.
	if _, err := newServer(intercept.Server{Name: "guard", URL: url}, slog.New(slog.DiscardHandler), slog.DiscardHandler); err == nil {
		t.Error("a server started with a guard that refuses it")
	}
}
