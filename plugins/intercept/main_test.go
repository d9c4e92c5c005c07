package intercept_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// testhost is the path of the interceptor host the tests run as separate
// processes: ./internal/testhost, built once by TestMain.
var testhost string

func TestMain(m *testing.M) {
	if len(os.Args) > 3 && os.Args[1] == teeArg {
		os.Exit(tee(os.Args[2], os.Args[3:]))
	}
	dir, err := os.MkdirTemp("", "intercept-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testhost = filepath.Join(dir, "testhost")
	goTool, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "the tests build ./internal/testhost and need the go command:", err)
		os.Exit(1)
	}
	if out, err := exec.Command(goTool, "build", "-o", testhost, "./internal/testhost").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ./internal/testhost: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// teeArg, as the first argument of the test binary, makes it a recording
// wrapper around a stdio host: "<test binary> intercept-tee <log>
// <command>…" runs the command, relays its standard input and output, and
// appends every line that crosses them to the file log, as
// "<pid> > <line>" (from the invoker) or "<pid> < <line>" (from the
// host), each logged before it is relayed.
const teeArg = "intercept-tee"

// teeServer returns the configuration of a stdio host named name that
// runs command behind the recording wrapper, logging to log. Built with
// the race detector, the wrapper would sleep a second as it exits (the
// detector's atexit_sleep_ms), past the plugin's wait for the command to
// end: its environment turns that off.
func teeServer(name, log string, command ...string) intercept.Server {
	return intercept.Server{Name: name, Command: append([]string{os.Args[0], teeArg, log}, command...),
		Env: append(os.Environ(), "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")}
}

// tee is the recording wrapper; it returns the exit code.
func tee(log string, command []string) int {
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tee:", err)
		return 1
	}
	defer f.Close()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tee:", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tee:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "tee:", err)
		return 1
	}
	var mu sync.Mutex
	relay := func(dir string, from io.Reader, to io.Writer) {
		r := bufio.NewReader(from)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				mu.Lock()
				fmt.Fprintf(f, "%d %s %s\n", os.Getpid(), dir, bytes.TrimRight(line, "\n"))
				mu.Unlock()
				if _, err := to.Write(line); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		relay(">", os.Stdin, in)
		in.Close() // the invoker closed: so does the host
	}()
	relay("<", out, os.Stdout)
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		return 1
	}
	return 0
}

// hostKind is how the plugin reaches a test host.
type hostKind string

const (
	overStdio hostKind = "stdio"
	overHTTP  hostKind = "http"
)

// kinds are the transports every behaviour test runs over.
var kinds = []hostKind{overStdio, overHTTP}

// hostToken is the bearer token of the HTTP test hosts.
const hostToken = "test-token"

// startHost returns the configuration of a test host serving the
// interceptors named serve, over kind. An HTTP host is started now and
// stopped when the test ends; a stdio host is started by the plugin.
func startHost(t testing.TB, kind hostKind, name string, serve ...string) intercept.Server {
	t.Helper()
	args := []string{"-serve", strings.Join(serve, ",")}
	if kind == overStdio {
		return intercept.Server{Name: name, Command: append([]string{testhost}, args...)}
	}
	addr := startHTTPHost(t, append(args, "-token", hostToken)...)
	return intercept.Server{Name: name, URL: "http://" + addr, Token: hostToken}
}

// startHTTPHost runs the test host over HTTP with args and returns its
// address.
func startHTTPHost(t testing.TB, args ...string) string {
	t.Helper()
	addr, _ := runHTTPHost(t, "127.0.0.1:0", args...)
	return addr
}

// runHTTPHost runs the test host over HTTP at addr with args and returns
// its address and its process, killed with the test.
func runHTTPHost(t testing.TB, addr string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(testhost, append(args, "-http", addr)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the test host did not start: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("the test host said %q", line)
	}
	return addr, cmd
}

// events collects audit events.
type events struct{ plugintest.Buffer }

// setup is a hookflow server with the test tools, an audit plugin and the
// intercept plugin configured by cfg.
type setup struct {
	h      *plugintest.Harness
	audit  *audit.Plugin
	plugin *intercept.Plugin
	events *events
}

func newSetup(t testing.TB, cfg intercept.Config) *setup {
	t.Helper()
	return newSetupWith(t, cfg, nil)
}

// newSetupWith is newSetup whose harness options more may add to (tools,
// hooks, plugins after the intercept plugin).
func newSetupWith(t testing.TB, cfg intercept.Config, more func(*plugintest.Options)) *setup {
	t.Helper()
	s := &setup{events: &events{}}
	s.audit = audit.New(audit.Config{Handler: slog.NewJSONHandler(s.events, nil), Flows: []flows.ID{flows.ToolsCallTool}})
	t.Cleanup(func() { _ = s.audit.Close(context.Background()) })
	s.plugin = intercept.New(cfg)
	t.Cleanup(func() { _ = s.plugin.Close() })
	opts := &plugintest.Options{Plugins: []framework.Plugin{s.audit, s.plugin}}
	if more != nil {
		more(opts)
	}
	s.h = plugintest.New(t, opts)
	if err := s.h.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

// probe records what runs carry: the text the probe tool is called with,
// and, once a run is over (in finally), the text of its input and of its
// output. The probe tool echoes its input, as the echo tool does.
type probe struct {
	mu   sync.Mutex
	tool []string // the text of each call the tool got
	runs []probed // per tools/call run, in finally
}

type probed struct {
	input, output string // "" for none
}

// toolProbe is the probe's tool.
const toolProbe = "probe"

// newProbedSetup is newSetup with a probe.
func newProbedSetup(t testing.TB, cfg intercept.Config) (*setup, *probe) {
	t.Helper()
	pr := &probe{}
	s := newSetupWith(t, cfg, func(o *plugintest.Options) {
		o.Setup = func(srv *framework.Server) error {
			return errors.Join(
				framework.AddToolFunc(srv, &mcp.Tool{Name: toolProbe}, func(_ context.Context, _ *mcp.CallToolRequest, in plugintest.Text) (plugintest.Text, error) {
					pr.mu.Lock()
					defer pr.mu.Unlock()
					pr.tool = append(pr.tool, in.Text)
					return in, nil
				}),
				srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Priority: priority.Max, Name: "probe",
					Fn: func(c *flows.Context) error {
						r := probed{input: textOf(t, c.Input()), output: textOf(t, c.Output())}
						pr.mu.Lock()
						defer pr.mu.Unlock()
						pr.runs = append(pr.runs, r)
						return nil
					}}))
		}
	})
	return s, pr
}

// take returns what the probe recorded since the last take, and forgets
// it.
func (pr *probe) take() (tool []string, runs []probed) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	tool, runs = pr.tool, pr.runs
	pr.tool, pr.runs = nil, nil
	return tool, runs
}

// textOf returns the text of a tools/call run's input or output: the
// "text" of the typed arguments, of the tool's typed output, or of the
// structured content of a result a hook set; "" for nil.
func textOf(t testing.TB, v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Errorf("probe: %v", err)
		return ""
	}
	var x struct {
		Text              *string         `json:"text"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		t.Errorf("probe: %v: %s", err, b)
		return ""
	}
	switch {
	case x.Text != nil:
		return *x.Text
	case x.StructuredContent != nil:
		return textOf(t, x.StructuredContent)
	}
	t.Errorf("probe: no text in %s", b)
	return ""
}

// echo calls the echo tool with text.
func (s *setup) echo(text string) *plugintest.Result {
	return s.h.Call(plugintest.ToolEcho, plugintest.Text{Text: text})
}

// last returns the last audit event.
func (s *setup) last(t testing.TB) audit.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(s.events.String()), "\n")
	var ev audit.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ev); err != nil {
		t.Fatalf("%v: %s", err, lines[len(lines)-1])
	}
	return ev
}

// decisions renders an event's decisions as "by outcome" lines.
func decisions(ev audit.Event) string {
	var out []string
	for _, d := range ev.Decisions {
		out = append(out, d.By+" "+d.What+" "+d.Outcome)
	}
	return strings.Join(out, "\n")
}

// hookID is the ID of the plugin's hook for interceptor id in stage.
func hookID(stage, id string) string {
	return "plugintest/plugin:intercept/tools:call-tool/" + stage + "/" + id
}
