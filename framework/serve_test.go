package framework_test

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework"
)

// serveOn serves hs on a loopback port until the test ends, and returns
// its address.
func serveOn(t *testing.T, hs *http.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = hs.Close()
		<-done
	})
	return ln.Addr().String()
}

// TestNewHTTPServerCutsOffDribbler: a client that sends its request's
// headers one byte a second is cut off once ReadHeaderTimeout (10 s) has
// passed, where http.ListenAndServe would hold its connection for ever.
func TestNewHTTPServerCutsOffDribbler(t *testing.T) {
	t.Parallel()
	addr := serveOn(t, framework.NewHTTPServer("", http.NotFoundHandler()))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	closed := make(chan time.Duration, 1)
	start := time.Now()
	go func() {
		_, _ = io.Copy(io.Discard, c) // until the server closes
		closed <- time.Since(start)
	}()
	req := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; ; i = (i + 1) % len(req) {
		if _, err := c.Write([]byte{req[i]}); err != nil {
			break // the server closed the connection
		}
		select {
		case d := <-closed:
			if d < 9*time.Second || d > 15*time.Second {
				t.Fatalf("the dribbling client was cut off after %v; want about 10 s", d)
			}
			return
		case <-tick.C:
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal("the dribbling client is still connected after 20 s")
		}
	}
	if d := <-closed; d > 15*time.Second {
		t.Fatalf("the dribbling client was cut off after %v; want about 10 s", d)
	}
}

// TestNewHTTPServerRefusesHugeHeaders: headers past 64 KiB get 431, and a
// request within them is served.
func TestNewHTTPServerRefusesHugeHeaders(t *testing.T) {
	t.Parallel()
	addr := serveOn(t, framework.NewHTTPServer("", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	for _, tc := range []struct {
		size int
		want int
	}{
		{size: 16 << 10, want: http.StatusOK},
		{size: 128 << 10, want: http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(strconv.Itoa(tc.size), func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			go fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", tc.size))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// TestNewHTTPServerBounds pins the fields the documentation names: no
// whole-request or whole-response timeout, which would end SSE streams.
func TestNewHTTPServerBounds(t *testing.T) {
	hs := framework.NewHTTPServer("127.0.0.1:8080", http.NotFoundHandler())
	if hs.Addr != "127.0.0.1:8080" || hs.Handler == nil {
		t.Fatalf("addr %q, handler %v", hs.Addr, hs.Handler)
	}
	if hs.ReadHeaderTimeout != 10*time.Second || hs.IdleTimeout != 2*time.Minute || hs.MaxHeaderBytes != 64<<10 {
		t.Fatalf("ReadHeaderTimeout %v, IdleTimeout %v, MaxHeaderBytes %d", hs.ReadHeaderTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
	}
	if hs.ReadTimeout != 0 || hs.WriteTimeout != 0 {
		t.Fatalf("ReadTimeout %v, WriteTimeout %v: either would end long SSE streams", hs.ReadTimeout, hs.WriteTimeout)
	}
}

// handBuiltServers returns where src, a Go file, serves HTTP without
// NewHTTPServer: a call of net/http's ListenAndServe, ListenAndServeTLS,
// Serve or ServeTLS, or an http.Server built by hand.
func handBuiltServers(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "net/http" {
			local = "http"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" || local == "_" {
		return nil, nil
	}
	isHTTP := func(e ast.Expr, names ...string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && id.Name == local && slices.Contains(names, sel.Sel.Name)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if isHTTP(n.Fun, "ListenAndServe", "ListenAndServeTLS", "Serve", "ServeTLS") {
				found = append(found, fset.Position(n.Pos()).String())
			}
		case *ast.CompositeLit:
			if isHTTP(n.Type, "Server") {
				found = append(found, fset.Position(n.Pos()).String())
			}
		}
		return true
	})
	return found, nil
}

func TestHandBuiltServersFound(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`package p; import "net/http"; func f() { http.ListenAndServe(":1", nil) }`, 1},
		{`package p; import "net/http"; func f() { _ = &http.Server{Addr: ":1"} }`, 1},
		{`package p; import h "net/http"; func f() { h.Serve(nil, nil); _ = h.Server{} }`, 2},
		{`package p; import "net/http"; func f(s *http.Server) { s.ListenAndServe() }`, 0},
		{`package p; import "net/http"; func f() { http.NewServeMux() }`, 0},
		{`package p; func f() { http.ListenAndServe(":1", nil) }`, 0}, // another http
	} {
		got, err := handBuiltServers(token.NewFileSet(), "p.go", tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want {
			t.Errorf("%s: found %v, want %d", tc.src, got, tc.want)
		}
	}
}

// TestNoHandBuiltServers: every example, plugin and command serves HTTP
// through NewHTTPServer, so that none leaves its bounds out. Users copy
// examples.
func TestNoHandBuiltServers(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, dir := range []string{"../examples", "../plugins", "../cmd"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			files++
			found, err := handBuiltServers(fset, path, nil)
			for _, at := range found {
				t.Errorf("%s: serve with framework.NewHTTPServer", at)
			}
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("read %d files; the walk missed the tree", files)
	}
}
