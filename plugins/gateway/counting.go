package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// incoming sees each message the upstream sends before the SDK does:
// it counts the notifications (see drain), notes the tools that must be
// called as tasks from a tools/list result, and marks a request to the
// client that came on a forwarded call's response (ctx is the call's,
// see begin) with the call's key (see related.go). ctx carries no call
// for a message on no call's stream, and over stdio.
func (c *conn) incoming(ctx context.Context, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
			if counted(m.Method) && c.read.Add(1)-c.handled.Load() > maxBacklog {
				c.slowDown()
			}
			return
		}
		if k, _ := ctx.Value(callKey{}).(*call); k != nil && toClient(m.Method) {
			if p, ok := markRelated(m.Params, k.key); ok {
				m.Params = p
			}
		}
	case *jsonrpc.Response:
		c.noteTaskTools(taskTools(m.Result))
	}
}

// maxBacklog bounds the notifications read from the upstream that the
// client's handlers have not finished with. The SDK queues what its
// transport reads without bound, and its queue keeps what it handled
// until it grows again: a transport that reads faster than the handlers
// would make it hold a whole flood of notifications.
const maxBacklog = 256

// slowDown holds the reading of the upstream until the client's handlers
// have caught up with half of the backlog, for drainTimeout at most;
// after that the counts are brought level (as in drainHandlers), so that
// a handler that waits long (a request to the client) slows the reading
// by drainTimeout per maxBacklog notifications at most.
func (c *conn) slowDown() {
	deadline := time.Now().Add(drainTimeout)
	timer := time.AfterFunc(drainTimeout, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.read.Load()-c.handled.Load() > maxBacklog/2 {
		if !time.Now().Before(deadline) || c.broken.Load() {
			for {
				h, r := c.handled.Load(), c.read.Load()
				if h >= r || c.handled.CompareAndSwap(h, r) {
					return
				}
			}
		}
		c.cond.Wait()
	}
}

// noteStatus notes an HTTP upstream's refusal of the gateway's
// credentials (see wrap).
func (c *conn) noteStatus(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		c.refused.Store(true)
	}
}

// countingTransport counts the notifications read from its connection
// (a stdio upstream's), through incoming.
type countingTransport struct {
	mcp.Transport
	c *conn
}

func (t countingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{Connection: conn, c: t.c}, nil
}

// countingRoundTripper counts the notifications in the event streams of
// the responses of an HTTP upstream session on the SDK's client
// transport (Upstream.HTTPTransport ClientTransportSDK), which
// reads them below the SDK: hookflow's transport tells conn.incoming
// instead. It goes when that option does.
type countingRoundTripper struct {
	next http.RoundTripper
	c    *conn
}

func (t countingRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	t.c.markBroken(err)
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		t.c.refused.Store(true)
	}
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The SDK posts a request with the context of its caller: a
		// forwarded call's names the call (see conn.begin).
		body := &countingBody{ReadCloser: resp.Body, c: t.c}
		if k, _ := r.Context().Value(callKey{}).(*call); k != nil {
			body.related = relatedMarker{key: k.key}
		}
		resp.Body = body
	}
	return resp, err
}

// countingBody counts the JSON-RPC notifications in the data lines of a
// server-sent event stream while it is read, and has related mark the
// requests to the client that the upstream sends on the response stream
// of a forwarded call (see related.go for why). It hands on whole lines
// only, so that it can rewrite one.
type countingBody struct {
	io.ReadCloser
	c       *conn
	related relatedMarker // zero for a stream of no forwarded call
	// line holds the start of a line not yet complete; long is set while
	// a line that outgrew maxLine passes through as it is (unchecked).
	line []byte
	long bool
	// out[off:] is what Read hands on next; err is the stream's error,
	// returned once out is empty.
	out []byte
	off int
	err error
}

// maxLine bounds the part of a data line countingBody keeps to check it.
const maxLine = 1 << 20

func (b *countingBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for b.off == len(b.out) {
		if b.err != nil {
			return 0, b.err
		}
		b.out, b.off = b.out[:0], 0
		n, err := b.ReadCloser.Read(p) // p is scratch space until out is copied into it
		b.c.markBroken(err)
		b.feed(p[:n])
		if err != nil {
			b.out = append(b.out, b.line...)
			b.line, b.err = b.line[:0], err
		}
	}
	n := copy(p, b.out[b.off:])
	b.off += n
	return n, nil
}

// feed appends data to out, checked (and rewritten) line by line; an
// incomplete line waits in line.
func (b *countingBody) feed(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if b.long {
			if i < 0 {
				b.out = append(b.out, data...)
				return
			}
			b.out = append(b.out, data[:i+1]...)
			b.long, data = false, data[i+1:]
			continue
		}
		if i < 0 {
			if b.line = append(b.line, data...); len(b.line) > maxLine {
				b.out = append(b.out, b.line...)
				b.line, b.long = b.line[:0], true
			}
			return
		}
		b.line = append(b.line, data[:i]...)
		b.out = append(append(b.out, b.check(b.line)...), '\n')
		b.line, data = b.line[:0], data[i+1:]
	}
}

// check counts line when it is the data of a notification, and returns it
// with the call's key in its _meta when it is a request to the client on
// a call's stream; else line as it is.
func (b *countingBody) check(line []byte) []byte {
	rest, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return line
	}
	if bytes.Contains(rest, []byte(`"taskSupport"`)) {
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(rest, &resp) == nil {
			b.c.noteTaskTools(taskTools(resp.Result))
		}
	}
	notification := bytes.Contains(rest, []byte(`"notifications/`))
	request := !notification && b.related.candidate(rest)
	if !notification && !request {
		return line
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(rest, &m) != nil {
		return line
	}
	switch {
	case m.ID == nil && counted(m.Method):
		b.c.read.Add(1)
	case request:
		if marked, ok := b.related.mark(rest, m.ID, m.Method); ok {
			return marked
		}
	}
	return line
}

type countingConn struct {
	mcp.Connection
	c *conn
}

func (cc countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := cc.Connection.Read(ctx)
	if err != nil {
		// The process's output ended, or the gateway closes the session.
		cc.c.broken.Store(true)
		return msg, err
	}
	cc.c.incoming(context.Background(), msg)
	return msg, err
}
