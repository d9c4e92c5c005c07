package redistest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a Redis server shared by the tests of one package. The zero
// value is ready to use; it is safe for concurrent use.
type Server struct {
	once sync.Once
	addr string
	why  string // why there is no server
	cmd  *exec.Cmd
}

// Addr returns the address of the Redis server, starting one if needed, or
// skips t (fails it when HOOKFLOW_REQUIRE_REDIS=1) with the reason there is
// none.
func (s *Server) Addr(t testing.TB) string {
	t.Helper()
	s.once.Do(s.start)
	if s.addr == "" {
		msg := "no Redis for this test: " + s.why +
			"; set HOOKFLOW_REDIS_ADDR=host:port or install redis-server (apt-get install redis-server)"
		if os.Getenv("HOOKFLOW_REQUIRE_REDIS") == "1" {
			t.Fatal(msg + " (HOOKFLOW_REQUIRE_REDIS=1: a Redis test may not skip)")
		}
		t.Skip("skipped: " + msg)
	}
	return s.addr
}

// Main runs the package's tests and then stops the server. It silences
// go-redis's own log lines, which the unreachable-Redis tests provoke on
// purpose. It returns m.Run's exit code.
func (s *Server) Main(m *testing.M) int {
	redis.SetLogger(quiet{})
	defer s.Close()
	return m.Run()
}

// quiet is a go-redis logger that drops everything.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Close stops the redis-server that Addr started, if any.
func (s *Server) Close() {
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Ping reports whether a Redis server answers at addr within a second.
func Ping(addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: time.Second,
		WriteTimeout: time.Second, MaxRetries: -1})
	defer c.Close()
	return c.Ping(context.Background()).Err()
}

func (s *Server) start() {
	if addr := os.Getenv("HOOKFLOW_REDIS_ADDR"); addr != "" {
		if err := Ping(addr); err != nil {
			s.why = fmt.Sprintf("HOOKFLOW_REDIS_ADDR=%s does not answer PING: %v", addr, err)
			return
		}
		s.addr = addr
		return
	}
	path, err := exec.LookPath("redis-server")
	if err != nil {
		s.why = "HOOKFLOW_REDIS_ADDR is unset and redis-server is not in PATH"
		return
	}
	for range 3 { // a free port can be taken before redis-server binds it
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.why = "no free port: " + err.Error()
			return
		}
		addr := l.Addr().String()
		l.Close()
		_, port, _ := net.SplitHostPort(addr)
		var out bytes.Buffer
		cmd := exec.Command(path, "--bind", "127.0.0.1", "--port", port,
			"--save", "", "--appendonly", "no", "--protected-mode", "yes")
		cmd.Stdout, cmd.Stderr = &out, &out
		dieWithParent(cmd) // a killed test binary leaves no redis-server behind
		if err := cmd.Start(); err != nil {
			s.why = "starting redis-server: " + err.Error()
			return
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if Ping(addr) == nil {
				s.addr, s.cmd = addr, cmd
				return
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		s.why = "redis-server did not answer PING: " + out.String()
	}
}

// RefusingAddr returns a loopback address nothing listens on: a Redis that refuses
// connections.
func RefusingAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// SilentAddr returns the address of a listener that accepts connections and
// never answers: a Redis that hangs. The listener and its connections are
// closed when the test ends.
func SilentAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}
