// Command record stands in for an MCP server binary under
// .ci/conformance.sh and records the suite's traffic as a difftest corpus.
// It takes the flags the script gives (-http, -stateless), starts the
// server binary named by -server with them on another loopback port, and
// serves a reverse proxy on -http that writes each request (method, the
// headers a transport reads, body) as a step of one case, to -out when it
// is told to stop. Session ids become $s1, $s2… in the order the server
// handed them out, as a replay on another server numbers its own.
//
// .ci/record-conformance.sh runs it; the corpus it writes is replayed by
// examples/everything's TestConformanceDiffer.
package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hookflow/hookflow/internal/difftest"
)

func main() {
	addr := flag.String("http", "", "address to serve the recording proxy on")
	stateless := flag.Bool("stateless", true, "passed to the server")
	server := flag.String("server", "", "the MCP server binary to record")
	out := flag.String("out", "", "file the corpus line is appended to")
	name := flag.String("name", "conformance", "the case's name; the leg is appended")
	flag.Parse()
	if *addr == "" || *server == "" || *out == "" {
		log.Fatal("record: -http, -server and -out are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	port, err := freePort()
	if err != nil {
		log.Fatal(err)
	}
	child := exec.CommandContext(ctx, *server, "-http", "127.0.0.1:"+port, "-stateless="+strconv.FormatBool(*stateless))
	child.Stdout, child.Stderr = os.Stderr, os.Stderr
	if err := child.Start(); err != nil {
		log.Fatal(err)
	}
	if err := waitPort(port, 30*time.Second); err != nil {
		log.Fatal(err)
	}
	leg := difftest.Stateful
	if *stateless {
		leg = difftest.Stateless
	}
	rec := &recorder{sessions: map[string]string{}}
	target := &url.URL{Scheme: "http", Host: "127.0.0.1:" + port}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // SSE: pass every write on
	proxy.ModifyResponse = func(resp *http.Response) error {
		rec.sawSession(resp.Header.Get("Mcp-Session-Id"))
		return nil
	}
	hs := &http.Server{Addr: *addr, Handler: rec.wrap(proxy)}
	go func() {
		if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		_ = hs.Close()
	}
	_ = child.Wait()
	if err := rec.write(*out, *name+" "+leg, leg); err != nil {
		log.Fatal(err)
	}
}

// recordedHeaders are the request headers a streamable transport reads.
var recordedHeaders = []string{"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version",
	"Mcp-Method", "Mcp-Name", "Last-Event-Id", "Origin", "Authorization"}

type recorder struct {
	mu       sync.Mutex
	steps    []difftest.Step
	sessions map[string]string // the server's session id: $sN
}

func (r *recorder) sawSession(id string) {
	if id == "" {
		return
	}
	r.mu.Lock()
	if _, ok := r.sessions[id]; !ok {
		r.sessions[id] = "$s" + strconv.Itoa(len(r.sessions)+1)
	}
	r.mu.Unlock()
}

// wrap records each request before next serves it.
func (r *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, "record: reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.mu.Lock()
		r.steps = append(r.steps, r.step(req, body))
		r.mu.Unlock()
		next.ServeHTTP(w, req)
	})
}

// step returns req as a difftest step; r.mu is held.
func (r *recorder) step(req *http.Request, body []byte) difftest.Step {
	s := difftest.Step{Headers: map[string]*string{}}
	if req.Method != http.MethodPost {
		s.Method = req.Method
	}
	for _, k := range recordedHeaders {
		vs := req.Header.Values(k)
		if len(vs) == 0 {
			if k == "Accept" || k == "Content-Type" && req.Method == http.MethodPost {
				s.Headers[k] = nil // the replay sets it by default
			}
			continue
		}
		v := strings.Join(vs, ", ")
		if k == "Mcp-Session-Id" {
			if n, ok := r.sessions[v]; ok {
				v = n
			}
		}
		s.Headers[k] = &v
	}
	for k, vs := range req.Header {
		if strings.HasPrefix(k, "Mcp-Param-") {
			v := strings.Join(vs, ", ")
			s.Headers[k] = &v
		}
	}
	if h, _, err := net.SplitHostPort(req.Host); err != nil || (h != "localhost" && h != "127.0.0.1") {
		host := req.Host
		s.Headers["Host"] = &host
	}
	switch {
	case len(body) == 0 && req.Method != http.MethodPost:
	case json.Valid(body):
		var buf bytes.Buffer
		if json.Compact(&buf, body) == nil {
			s.JSON = buf.Bytes()
		}
	default:
		b := string(body)
		s.Body = &b
	}
	return s
}

// write appends the recorded case to path as one JSON line.
func (r *recorder) write(path, name, leg string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	line, err := json.Marshal(difftest.Case{Name: name, Legs: []string{leg}, Steps: r.steps})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, "%s\n", line); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
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

func waitPort(port string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			return c.Close()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("record: the server did not listen on port %s within %v", port, limit)
}
