package framework_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// TestSessionsBounded opens sessions up to Options.MaxSessions and checks
// that one more initialize is served by closing the oldest session, whose
// client then gets 404 (and must initialize again), while the others are
// still served: a peer opening sessions in a loop holds at most the bound
// and cannot lock new clients out.
func TestSessionsBounded(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "bounded", Version: "1"}, &framework.Options{MaxSessions: 3})
	addEntities(t, srv)
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	var open []*httpSession
	for range 3 {
		open = append(open, newHTTPSession(t, h, nil))
	}
	late := newHTTPSession(t, h, nil)
	if n := countSessions(srv); n != 3 {
		t.Fatalf("%d sessions after an initialize at the bound, want 3", n)
	}
	if rec := open[0].post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); rec.Code != http.StatusNotFound {
		t.Errorf("the oldest session's request: %d, want 404 (closed to make room)", rec.Code)
	}
	for i, s := range append(open[1:], late) {
		if rec := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); rec.Code != http.StatusOK {
			t.Errorf("session %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
}

func countSessions(srv *framework.Server) int {
	n := 0
	for range srv.SDK().Sessions() {
		n++
	}
	return n
}

// TestStalledBodyTimesOut holds a body half sent past Options.BodyReadTimeout:
// it is answered 408 and gives its room in the bodies in flight back, so
// that another body, which that room was too small for, is served.
func TestStalledBodyTimesOut(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "stalled", Version: "1"},
		&framework.Options{MaxBodyBytesInFlight: 256 << 10, BodyReadTimeout: 300 * time.Millisecond})
	addEntities(t, srv)
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := bodyServerFor(t, h)
	addr := strings.TrimPrefix(ts, "http://")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 200<<10) + `"}}}`

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A bound on a hang, not a timing assertion: without the timeout the
	// server never answers.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body[:len(body)/2])
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %d, want 408", resp.StatusCode)
	}

	req, _ := http.NewRequest(http.MethodPost, ts, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a whole body after the stalled one timed out: %d, want 200", resp.StatusCode)
	}
}
