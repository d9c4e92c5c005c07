package framework_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// hostileChild names the test a child process runs, in
// TestDeclaredLengthNotAllocated.
const hostileChild = "HOOKFLOW_HOSTILE_CHILD"

// bodyServer returns a started server with the test entities and the given
// bound on bodies in flight, behind a real HTTP listener on loopback.
func bodyServer(t testing.TB, inFlight int64, opts *mcp.StreamableHTTPOptions) *httptest.Server {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "bodies", Version: "1"}, &framework.Options{MaxBodyBytesInFlight: inFlight})
	addEntities(t, srv)
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// bodyServerFor serves h on loopback for the test and returns its URL.
func bodyServerFor(t testing.TB, h http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// rawPost writes a POST with the given headers and body on a new
// connection, closes its write side, and returns the response status.
func rawPost(t testing.TB, addr string, header string, body []byte) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\n%s\r\n", addr, header)
	_, _ = conn.Write(body)
	_ = conn.(*net.TCPConn).CloseWrite()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestDeclaredLengthNotAllocated sends one request declaring a body of
// 64 GiB, with 100 bytes, to a server in a child process: the server must
// answer 413 and allocate next to nothing for it, not the declared length
// (which ended the process with a fatal out-of-memory error, or where the
// allocation succeeds, reserved 64 GiB).
func TestDeclaredLengthNotAllocated(t *testing.T) {
	if os.Getenv(hostileChild) == t.Name() {
		for _, tc := range []struct {
			name string
			opts *mcp.StreamableHTTPOptions
		}{
			{"stateful", nil},
			{"stateless", &mcp.StreamableHTTPOptions{Stateless: true}},
			{"no per-body limit", &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: -1}},
		} {
			ts := bodyServer(t, 0, tc.opts)
			addr := strings.TrimPrefix(ts.URL, "http://")
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			status := rawPost(t, addr, "Content-Length: 68719476736\r\n", body)
			runtime.ReadMemStats(&after)
			grew := after.TotalAlloc - before.TotalAlloc
			fmt.Printf("%s: status %d, allocated %d bytes\n", tc.name, status, grew)
			if grew > 1<<20 {
				t.Errorf("%s: serving one request declaring 64 GiB allocated %d bytes; want < 1 MiB", tc.name, grew)
			}
			if tc.opts == nil || tc.opts.MaxRequestBodyBytes >= 0 {
				if status != http.StatusRequestEntityTooLarge {
					t.Errorf("%s: status %d, want 413", tc.name, status)
				}
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), hostileChild+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatalf("the server process failed: %v", err)
	}
}

// TestLargeBodiesRefusedWhileStreaming sends 16 bodies of 50 MB at once,
// chunked (no declared length), and checks that each is refused (413, or
// 503 when the bodies in flight are full) having made the server allocate a
// bounded amount, not the bodies' size.
func TestLargeBodiesRefusedWhileStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 800 MB over loopback")
	}
	ts := bodyServer(t, 0, nil)
	addr := strings.TrimPrefix(ts.URL, "http://")
	const clients, size = 16, 50 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	statuses := make([]int, clients)
	for i := range clients {
		wg.Go(func() {
			statuses[i] = chunkedPost(t, addr, size)
		})
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("16 × 50 MB chunked: statuses %v, server and clients allocated %d MiB", statuses, grew>>20)
	for i, s := range statuses {
		if s != http.StatusRequestEntityTooLarge && s != http.StatusServiceUnavailable {
			t.Errorf("body %d: status %d, want 413 or 503", i, s)
		}
	}
	// The bound: each body read to the 4 MiB limit in a buffer that at
	// most doubles as it grows, plus per-connection buffers.
	if limit := uint64(clients * 2 * (mcp.DefaultMaxRequestBodyBytes + 1) * 2); grew > limit {
		t.Errorf("allocated %d MiB for 16 refused bodies; want ≤ %d MiB", grew>>20, limit>>20)
	}
}

// chunkedPost streams size bytes of a JSON string as a chunked POST body,
// stopping early when the server answers, and returns the status.
func chunkedPost(t testing.TB, addr string, size int) int {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n", addr)
	status := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			status <- 0
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	chunk := []byte(strings.Repeat("a", 32<<10))
	for sent := 0; sent < size; sent += len(chunk) {
		select {
		case s := <-status:
			return s
		default:
		}
		if _, err := fmt.Fprintf(conn, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
			break // the server closed the connection after answering
		}
	}
	_, _ = io.WriteString(conn, "0\r\n\r\n")
	return <-status
}

// TestBodiesInFlightBounded holds one body half sent and checks that a
// second, which would take the bodies in flight past their bound, is
// answered 503 with Retry-After at once, and that the first, once whole,
// is served.
func TestBodiesInFlightBounded(t *testing.T) {
	ts := bodyServer(t, 256<<10, &mcp.StreamableHTTPOptions{Stateless: true})
	addr := strings.TrimPrefix(ts.URL, "http://")
	text := strings.Repeat("x", 200<<10)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`

	// The first body declares its length and sends half: the server holds
	// a buffer for it while it waits for the rest.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body[:len(body)/2])

	// The second is refused while the first holds the room; it may take
	// a moment for the first to have been read that far: on a loaded
	// machine, longer than any number of tries, so the wait is by time.
	var status int
	var retry string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		status, retry = resp.StatusCode, resp.Header.Get("Retry-After")
		if status == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if status != http.StatusServiceUnavailable || retry == "" {
		t.Fatalf("second body: status %d, Retry-After %q; want 503 with Retry-After", status, retry)
	}

	// The first completes and is served.
	if _, err := io.WriteString(conn, body[len(body)/2:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first body: status %d, want 200", resp.StatusCode)
	}

	// With the room given back, the second is served too.
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("second body, retried: status %d, want 200", resp.StatusCode)
	}
}

// TestReadBodyBounds checks ReadBody's contract at its edges: a declared
// length past max is not read, a chunked body is read to max+1 bytes, and
// either way r.Body still reads the whole body.
func TestReadBodyBounds(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		name     string
		declared int64
		max      int64
		want     string
		whole    bool
	}{
		{"declared within max", int64(len(body)), 100, body, true},
		{"declared past max", int64(len(body)), 10, "", false},
		{"declared past max, lying", 1 << 36, 10, "", false},
		{"chunked past max", -1, 10, body[:11], false},
		{"chunked at max", -1, int64(len(body)), body, true},
		{"declared short of the bytes, no max", 3, -1, body, true},
		{"declared far past the bytes, no max", 1 << 36, -1, body, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(strings.NewReader(body)))
			r.ContentLength = tc.declared
			data, whole, err := framework.ReadBody(r, tc.max)
			if err != nil || whole != tc.whole || string(data) != tc.want {
				t.Fatalf("ReadBody = %q, %v, %v; want %q, %v", data, whole, err, tc.want, tc.whole)
			}
			if cap(data) > 64<<10+1 {
				t.Errorf("ReadBody allocated %d bytes for a %d-byte body", cap(data), len(body))
			}
			rest, err := io.ReadAll(r.Body)
			if err != nil || string(rest) != body {
				t.Errorf("r.Body reads %q, %v; want the whole body", rest, err)
			}
		})
	}
}

// BenchmarkReadBody measures reading a typical call body and a 1 MiB one.
func BenchmarkReadBody(b *testing.B) {
	for _, size := range []int{200, 1 << 20} {
		body := strings.Repeat("x", size)
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
				if _, _, err := framework.ReadBody(r, -1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
