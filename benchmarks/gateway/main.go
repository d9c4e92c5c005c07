// Command gateway benchmarks the hookflow gateway side by side with a
// direct connection and with Civic's passthrough proxy, on loopback, in one
// run: a trivial tool call (echo) of a Go SDK upstream served over stateful
// streamable HTTP, reached
//
//	direct          the client talks to the upstream
//	gateway         through `hookflow gateway -url …` with no hooks
//	gateway+audit   through the gateway with the audit plugin (to a file)
//	                and a no-op hook on every stage of every flow
//	civic           through @civic/passthrough-mcp-server@0.12.1 with a
//	                no-op tools/call hook (civic.mjs)
//	gateway-gogc100 with -gc-baseline: the gateway with no hooks, run with
//	                GOGC=100 (Go's default) instead of the gateway's own
//	                collector target
//	http-proxy      with -proxy-floor: a plain HTTP reverse proxy (the
//	                standard library's, no MCP decoding, no hooks): the
//	                least any gateway process on the path adds
//
// at concurrency 1 and 16 (one client session per worker). Each round
// runs every target and concurrency once, in order; the report gives, per
// target and concurrency, the median over the rounds of calls/s, p50 and
// p99, the peak resident memory of each target's process, and the
// machine's load average before and after.
//
//	go run . -civic /path/to/dir/with/node_modules [-rounds 3] [-calls 2000] [-gc-baseline] [-proxy-floor]
//
// -civic names a directory where @civic/passthrough-mcp-server@0.12.1 is
// installed (npm install --prefix DIR @civic/passthrough-mcp-server@0.12.1);
// without it the civic target is left out. The hookflow command is built
// from this repository.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	upstream := flag.Bool("upstream", false, "serve the benchmark's upstream (used by the runner)")
	civicDir := flag.String("civic", "", "directory with @civic/passthrough-mcp-server@0.12.1 installed under node_modules")
	rounds := flag.Int("rounds", 3, "rounds; the report gives medians over them")
	calls := flag.Int("calls", 2000, "measured calls per target, concurrency and round (after 20 warm-up calls per worker)")
	gcBaseline := flag.Bool("gc-baseline", false, "add a target: the gateway with no hooks run with GOGC=100")
	proxyFloor := flag.Bool("proxy-floor", false, "add a target: a plain HTTP reverse proxy in front of the upstream")
	proxyTo := flag.String("proxy", "", "serve a plain HTTP reverse proxy to `url` (used by the runner)")
	flag.Parse()
	if *upstream {
		serveUpstream()
		return
	}
	if *proxyTo != "" {
		serveProxy(*proxyTo)
		return
	}
	if err := run(*civicDir, *rounds, *calls, *gcBaseline, *proxyFloor); err != nil {
		log.Fatal(err)
	}
}

// serveUpstream serves a Go SDK server with one tool, echo, over stateful
// streamable HTTP on a free loopback port, and prints its URL.
func serveUpstream() {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-upstream", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
}

// target is a way to reach the upstream.
type target struct {
	name string
	url  string
	// pid is the process serving url.
	pid int
}

// serveProxy serves a reverse proxy to the upstream at to on a free
// loopback port, flushing event streams as they come, and prints its URL.
func serveProxy(to string) {
	u, err := url.Parse(to)
	if err != nil {
		log.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) },
		FlushInterval: -1,
		Transport:     &http.Transport{MaxIdleConnsPerHost: 256},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening http://%s%s\n", ln.Addr(), u.Path)
	log.Fatal(http.Serve(ln, rp))
}

func run(civicDir string, rounds, calls int, gcBaseline, proxyFloor bool) error {
	dir, err := os.MkdirTemp("", "gateway-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var procs []*exec.Cmd
	var targets []target
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}()
	start := func(env []string, name string, args ...string) (target, error) {
		cmd := exec.Command(name, args...)
		if env != nil {
			cmd.Env = append(os.Environ(), env...)
		}
		url, err := startAndRead(cmd)
		if err != nil {
			return target{}, err
		}
		procs = append(procs, cmd)
		return target{url: url, pid: cmd.Process.Pid}, nil
	}
	add := func(t target, name string) { t.name = name; targets = append(targets, t) }

	self, err := os.Executable()
	if err != nil {
		return err
	}
	direct, err := start(nil, self, "-upstream")
	if err != nil {
		return fmt.Errorf("upstream: %w", err)
	}
	up := direct.url
	hookflow := filepath.Join(dir, "hookflow")
	if out, err := exec.Command("go", "build", "-o", hookflow, "github.com/hookflow/hookflow/cmd/hookflow").CombinedOutput(); err != nil {
		return fmt.Errorf("building hookflow: %v\n%s", err, out)
	}
	add(direct, "direct")
	if proxyFloor {
		p, err := start(nil, self, "-proxy", up)
		if err != nil {
			return fmt.Errorf("http-proxy: %w", err)
		}
		add(p, "http-proxy")
	}
	gw, err := start(nil, hookflow, "gateway", "-url", up, "-http", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	add(gw, "gateway")
	if gcBaseline {
		gw, err := start([]string{"GOGC=100"}, hookflow, "gateway", "-url", up, "-http", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("gateway-gogc100: %w", err)
		}
		add(gw, "gateway-gogc100")
	}
	cfg := filepath.Join(dir, "gateway.yaml")
	yaml := fmt.Sprintf("upstreams:\n  - {name: upstream, url: %q}\nplugins:\n  audit: {file: %q}\n  noop: true\n", up, filepath.Join(dir, "audit.jsonl"))
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		return err
	}
	gwa, err := start(nil, hookflow, "gateway", "-config", cfg, "-http", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("gateway+audit: %w", err)
	}
	add(gwa, "gateway+audit")
	if civicDir != "" {
		script, err := os.ReadFile("civic.mjs")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(civicDir, "civic-bench.mjs"), script, 0o600); err != nil {
			return err
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		civic, err := start(nil, "node", filepath.Join(civicDir, "civic-bench.mjs"), port, up)
		if err != nil {
			return fmt.Errorf("civic: %w", err)
		}
		add(civic, "civic")
	}

	load0 := loadavg()
	type key struct {
		target string
		conc   int
	}
	results := map[key][]stats{}
	for r := range rounds {
		for _, t := range targets {
			for _, c := range []int{1, 16} {
				s, err := measure(t.url, c, calls)
				if err != nil {
					return fmt.Errorf("round %d, %s, concurrency %d: %w", r+1, t.name, c, err)
				}
				results[key{t.name, c}] = append(results[key{t.name, c}], s)
				fmt.Fprintf(os.Stderr, "round %d %-14s c=%-2d %8.0f calls/s p50 %v p99 %v\n", r+1, t.name, c, s.rate, s.p50, s.p99)
			}
		}
	}
	load1 := loadavg()

	fmt.Printf("| target | concurrency | calls/s | p50 | p99 |\n|---|---|---|---|---|\n")
	for _, c := range []int{1, 16} {
		for _, t := range targets {
			m := median(results[key{t.name, c}])
			fmt.Printf("| %s | %d | %.0f | %s | %s |\n", t.name, c, m.rate, round(m.p50), round(m.p99))
		}
	}
	fmt.Printf("\n| target | peak RSS (MiB) |\n|---|---:|\n")
	for _, t := range targets {
		fmt.Printf("| %s | %s |\n", t.name, peakRSS(t.pid))
	}
	fmt.Printf("\n%d rounds of %d calls per target and concurrency; load average before %s, after %s\n", rounds, calls, load0, load1)
	return nil
}

// startAndRead starts cmd and returns the URL it prints on stdout
// ("listening <url>") or, for the hookflow gateway, logs on stderr
// ("addr=<host:port>").
func startAndRead(cmd *exec.Cmd) (string, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	found := make(chan string, 2)
	scan := func(r io.Reader) {
		s := bufio.NewScanner(r)
		for s.Scan() {
			line := s.Text()
			if u, ok := strings.CutPrefix(line, "listening "); ok {
				found <- u
			} else if strings.Contains(line, "serving streamable HTTP") {
				if _, rest, ok := strings.Cut(line, " addr="); ok {
					addr, _, _ := strings.Cut(rest, " ")
					found <- "http://" + addr + "/mcp"
				}
			}
		}
	}
	go scan(stdout)
	go scan(stderr)
	select {
	case u := <-found:
		return u, nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		return "", fmt.Errorf("%s did not say where it listens", cmd.Path)
	}
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	return port, err
}

// stats are one measurement.
type stats struct {
	rate     float64
	p50, p99 time.Duration
}

// measure makes calls echo calls to url from conc sessions (after 20
// warm-up calls each) and returns the rate and latency percentiles.
func measure(url string, conc, calls int) (stats, error) {
	ctx := context.Background()
	sessions := make([]*mcp.ClientSession, conc)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for i := range sessions {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			return stats{}, err
		}
		defer cs.Close()
		sessions[i] = cs
	}
	args := map[string]any{"text": "hello"}
	call := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
		if err == nil && (res.IsError || len(res.Content) != 1) {
			err = fmt.Errorf("unexpected result %+v", res)
		}
		return err
	}
	for _, cs := range sessions {
		for range 20 {
			if err := call(cs); err != nil {
				return stats{}, err
			}
		}
	}
	lat := make([][]time.Duration, conc)
	errs := make([]error, conc)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := range conc {
		n := calls / conc
		wg.Go(func() {
			for range n {
				s := time.Now()
				if err := call(sessions[w]); err != nil {
					errs[w] = err
					return
				}
				lat[w] = append(lat[w], time.Since(s))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	var all []time.Duration
	for w := range conc {
		if errs[w] != nil {
			return stats{}, errs[w]
		}
		all = append(all, lat[w]...)
	}
	slices.Sort(all)
	return stats{
		rate: float64(len(all)) / elapsed.Seconds(),
		p50:  all[len(all)/2],
		p99:  all[len(all)*99/100],
	}, nil
}

// median returns the median of each field over ss.
func median(ss []stats) stats {
	pick := func(f func(stats) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return stats{
		rate: pick(func(s stats) float64 { return s.rate }),
		p50:  time.Duration(pick(func(s stats) float64 { return float64(s.p50) })),
		p99:  time.Duration(pick(func(s stats) float64 { return float64(s.p99) })),
	}
}

func round(d time.Duration) string {
	return d.Round(time.Microsecond).String()
}

// peakRSS returns the peak resident set size of process pid, in MiB
// (VmHWM of /proc/<pid>/status), or "unknown".
func peakRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err == nil {
				return fmt.Sprintf("%.1f", float64(kb)/1024)
			}
		}
	}
	return "unknown"
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
