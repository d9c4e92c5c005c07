package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/internal/redistest"
)

var redisServer redistest.Server

func TestMain(m *testing.M) { os.Exit(redisServer.Main(m)) }

// cluster is three instances of this example behind nginx, on one Redis.
type cluster struct {
	dir       string
	rdb       *redis.Client
	prefix    string
	url       string
	instances []*exec.Cmd
	names     []string
}

// needNginx returns nginx's path, or skips t (fails it under
// HOOKFLOW_REQUIRE_CLUSTER=1, as .ci/run sets).
func needNginx(t *testing.T) string {
	path, err := exec.LookPath("nginx")
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
			if _, serr := os.Stat(p); serr == nil {
				return p
			}
		}
		msg := "no nginx for the cluster test (apt-get install nginx)"
		if os.Getenv("HOOKFLOW_REQUIRE_CLUSTER") == "1" {
			t.Fatal(msg + " (HOOKFLOW_REQUIRE_CLUSTER=1: it may not skip)")
		}
		t.Skip("skipped: " + msg)
	}
	return path
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitListening waits until addr accepts connections, or fails t.
func waitListening(t *testing.T, addr string, cmd *exec.Cmd, logPath string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, _ := os.ReadFile(logPath)
	t.Fatalf("%s never listened on %s; its log:\n%s", cmd.Path, addr, out)
}

func startCluster(t *testing.T, budget int) *cluster {
	t.Helper()
	nginx := needNginx(t)
	redisAddr := redisServer.Addr(t)
	c := &cluster{dir: t.TempDir(), prefix: fmt.Sprintf("hookflow-cluster-test:%d:%s:", os.Getpid(), t.Name())}
	c.rdb = redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { _ = c.rdb.Close() })

	bin := filepath.Join(c.dir, "cluster")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var addrs []string
	for i := 1; i <= 3; i++ {
		addr, name := freeAddr(t), fmt.Sprintf("i%d", i)
		logPath := filepath.Join(c.dir, name+".log")
		logf, err := os.Create(logPath)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-http", addr, "-redis", redisAddr, "-name", name, "-prefix", c.prefix, "-budget", fmt.Sprint(budget))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); logf.Close() })
		waitListening(t, addr, cmd, logPath)
		c.instances, c.names = append(c.instances, cmd), append(c.names, name)
		addrs = append(addrs, addr)
	}
	listen := freeAddr(t)
	tmpl := template.Must(template.ParseFiles("nginx.conf.tmpl"))
	conf := filepath.Join(c.dir, "nginx.conf")
	f, err := os.Create(conf)
	if err != nil {
		t.Fatal(err)
	}
	if err := tmpl.Execute(f, map[string]any{"Dir": c.dir, "Listen": listen, "Instances": addrs}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	logPath := filepath.Join(c.dir, "nginx.out")
	logf, _ := os.Create(logPath)
	cmd := exec.Command(nginx, "-p", c.dir, "-c", conf)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGQUIT); _ = cmd.Wait(); logf.Close() })
	waitListening(t, listen, cmd, logPath)
	c.url = "http://" + listen + "/mcp"
	return c
}

// connect returns a client session through nginx; with a stateless server
// every request may reach another instance.
func (c *cluster) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cluster-test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: &http.Client{Timeout: 30 * time.Second}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// servedBy returns the instance a result names in its last text block.
func servedBy(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[len(res.Content)-1].(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return strings.TrimPrefix(tc.Text, "served by ")
}

func TestCluster(t *testing.T) {
	const budget = 40
	c := startCluster(t, budget)
	cs := c.connect(t)
	ctx := context.Background()

	t.Run("budget exact across instances", func(t *testing.T) {
		const calls, workers = 120, 12
		var mu sync.Mutex
		ok, refused := 0, 0
		servers := map[string]int{}
		var wg sync.WaitGroup
		jobs := make(chan struct{})
		for range workers {
			wg.Go(func() {
				for range jobs {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spend"})
					mu.Lock()
					switch {
					case err != nil:
						t.Errorf("spend: %v", err)
					case res.IsError:
						refused++
					default:
						ok++
					}
					if err == nil {
						servers[servedBy(res)]++
					}
					mu.Unlock()
				}
			})
		}
		for range calls {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
		if ok != budget || refused != calls-budget {
			t.Errorf("%d allowed, %d refused; want exactly %d allowed of %d", ok, refused, budget, calls)
		}
		if len(servers) < 2 {
			t.Errorf("answers came from %v: want the load spread over the instances", servers)
		}
	})

	t.Run("cache hits served by another instance", func(t *testing.T) {
		executors, hitters := map[string]bool{}, map[string]bool{}
		for range 12 {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"city": "Oslo"}})
			if err != nil || res.IsError {
				t.Fatalf("lookup: %v %v", err, res)
			}
			sc, _ := res.StructuredContent.(map[string]any)
			exec, _ := sc["executed_by"].(string)
			executors[exec] = true
			if by := servedBy(res); by != exec {
				hitters[by] = true
			}
		}
		n, err := c.rdb.HGet(ctx, c.prefix+executedKey, "Oslo").Int()
		if err != nil || n != 1 || len(executors) != 1 {
			t.Errorf("the lookup executed %d times (%v) on %v; want once", n, err, executors)
		}
		if len(hitters) == 0 {
			t.Errorf("no cache hit was served by an instance other than the one that executed")
		}
	})

	t.Run("session state shared", func(t *testing.T) {
		// A client of its own, naming its session in a header.
		session := fmt.Sprintf("conversation-%d", time.Now().UnixNano())
		gs, err := mcp.NewClient(&mcp.Implementation{Name: "cluster-test", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: c.url, MaxRetries: -1,
				HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: headerRT{SessionHeader, session}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer gs.Close()
		res, err := gs.CallTool(ctx, &mcp.CallToolParams{Name: "journal"})
		if err != nil || !res.IsError || !strings.Contains(fmt.Sprint(res.Content[0]), "MUST call session_init") {
			t.Fatalf("journal before init: %v %v, want the gate's directive", err, res)
		}
		res, err = gs.CallTool(ctx, &mcp.CallToolParams{Name: "session_init"})
		if err != nil || res.IsError {
			t.Fatalf("session_init: %v %v", err, res)
		}
		initBy := servedBy(res)
		others := map[string]bool{}
		for range 9 {
			res, err := gs.CallTool(ctx, &mcp.CallToolParams{Name: "journal"})
			if err != nil || res.IsError {
				t.Fatalf("journal after init on %s: %v %v", servedBy(res), err, res)
			}
			if by := servedBy(res); by != initBy {
				others[by] = true
			}
		}
		if len(others) == 0 {
			t.Errorf("every journal call was served by %s, which initialized the session: want other instances to know it too", initBy)
		}
		// Another session is still gated.
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "journal"})
		if err != nil || !res.IsError {
			t.Errorf("journal without a session header: %v %v, want it refused", err, res)
		}
	})

	t.Run("an instance killed mid-run", func(t *testing.T) {
		const calls, workers = 60, 12
		type outcome struct {
			ok      bool
			err     error
			started time.Time
		}
		results := make([]outcome, calls)
		var killedAt time.Time
		var killOnce sync.Once
		kill := func() {
			killOnce.Do(func() {
				killedAt = time.Now()
				_ = c.instances[1].Process.Kill()
			})
		}
		// Kill i2 as soon as it has a call under way.
		go func() {
			for range 400 {
				if n, _ := c.rdb.HGet(ctx, c.prefix+inflightKey, "i2").Int(); n > 0 {
					kill()
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		var wg sync.WaitGroup
		jobs := make(chan int)
		for range workers {
			wg.Go(func() {
				for i := range jobs {
					callCtx, cancel := context.WithTimeout(ctx, 45*time.Second)
					start := time.Now()
					res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"id": fmt.Sprint("w", i), "ms": 150}})
					cancel()
					if err == nil && res.IsError {
						err = fmt.Errorf("isError: %v", res.Content)
					}
					results[i] = outcome{ok: err == nil, err: err, started: start}
				}
			})
		}
		for i := range calls {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		kill()
		started, _ := c.rdb.HGetAll(ctx, c.prefix+startedKey).Result()
		finished, _ := c.rdb.HGetAll(ctx, c.prefix+finishedKey).Result()
		failed := 0
		for i, r := range results {
			id := fmt.Sprint("w", i)
			if started[id] != "" && started[id] != "1" {
				t.Errorf("call %s started %s times: a call must never run twice", id, started[id])
			}
			if r.ok && finished[id] != "1" {
				t.Errorf("call %s succeeded for its client but finished %q times", id, finished[id])
			}
			if !r.ok {
				failed++
				if r.err == nil {
					t.Errorf("call %s neither succeeded nor failed", id)
				}
				// Calls started well after the kill go to the live
				// instances (nginx retries a refused connection).
				if r.started.After(killedAt.Add(500 * time.Millisecond)) {
					t.Errorf("call %s, started after the kill, failed: %v", id, r.err)
				}
			}
		}
		if failed == 0 {
			t.Errorf("no call failed although i2 was killed with a call under way")
		}
		t.Logf("%d of %d calls failed with i2's death, each told to its client", failed, calls)
	})
}

// headerRT sets one header on every request.
type headerRT [2]string

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h[0], h[1])
	return http.DefaultTransport.RoundTrip(r)
}
