package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// ClientTransport is the client side of hookflow's streamable HTTP
// transport, an mcp.Transport for an mcp.Client: each message from the
// server is read once and decoded once, by [DecodeMessage], and Hooks see
// each one with the context of the request it answers. See "Client" in
// the package doc for what it does and what it leaves out.
type ClientTransport struct {
	// Endpoint is the server's MCP URL.
	Endpoint string
	// HTTPClient sends every request (http.DefaultClient when nil): its
	// transport adds credentials and headers.
	HTTPClient *http.Client
	// MaxRetries is how many times a stream that broke off is opened
	// again, with backoff, before the connection fails; 0: never (a
	// negative value is 0).
	MaxRetries int
	// MaxEventBytes bounds one server-sent event, any line of it, and a
	// JSON response's body (DefaultMaxEventBytes when 0): a larger one
	// fails the connection.
	MaxEventBytes int
	// Hooks are called as the connection reads.
	Hooks ClientHooks
}

// ClientHooks are what a connection of a [ClientTransport] tells its
// user as it reads, each optional. They run on the connection's
// goroutines, before the SDK sees what they are told of, and must not
// block.
type ClientHooks struct {
	// Message is called with each message the server sends, once decoded
	// and before Read returns it, with the context of the request on whose
	// HTTP response it came (the context Write was given) or, on the GET
	// stream, the connection's. It may change a request's Params.
	Message func(ctx context.Context, msg jsonrpc.Message)
	// Status is called with the status code of each HTTP response.
	Status func(code int)
	// Error is called with each error reaching the server or reading from
	// it (a refused connection, a stream cut short), and with the error
	// that ends the connection.
	Error func(err error)
}

// closeDeleteTimeout bounds the DELETE Close sends, as the SDK's does.
const closeDeleteTimeout = 5 * time.Second

// Connect returns a connection to the server; it sends nothing until the
// client writes its first message.
func (t *ClientTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	hc := t.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	// The connection outlives Connect's context (the GET stream is read
	// with it) but keeps its values, which a RoundTripper may need.
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &clientConn{
		url:        t.Endpoint,
		hc:         hc,
		maxRetries: max(t.MaxRetries, 0),
		maxBytes:   cmp0(t.MaxEventBytes, DefaultMaxEventBytes),
		hooks:      t.Hooks,
		ctx:        cctx,
		cancel:     cancel,
		incoming:   make(chan jsonrpc.Message, 10),
		done:       make(chan struct{}),
		failed:     make(chan struct{}),
	}, nil
}

func cmp0(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// clientConn is one session with the server.
type clientConn struct {
	url        string
	hc         *http.Client
	maxRetries int
	maxBytes   int
	hooks      ClientHooks
	ctx        context.Context // the connection's: the GET stream's and DELETE's
	cancel     context.CancelFunc
	incoming   chan jsonrpc.Message
	done       chan struct{} // closed by Close

	failOnce sync.Once
	failure  error
	failed   chan struct{} // closed when failure is set

	closeOnce sync.Once
	closeErr  error

	mu sync.Mutex
	// sessionID is the server's Mcp-Session-Id ("" for a stateless
	// server); version the protocol version the session negotiated: the
	// initialize result's, or the one a server/discover asked for when
	// the server listed it; initID the ID of that request, and discover
	// the version the server/discover asked for ("" for initialize).
	sessionID string
	version   string
	initID    jsonrpc.ID
	discover  string
	// paramTools are the listed tools whose calls carry Mcp-Param-*
	// headers, with the arguments each repeats (see noteParamTools).
	paramTools map[string][]binding
}

// fail ends the connection with err: Read and Write return it from now.
func (c *clientConn) fail(err error) {
	c.failOnce.Do(func() {
		c.failure = err
		close(c.failed)
		c.noteErr(err)
	})
}

func (c *clientConn) failedWith() error {
	select {
	case <-c.failed:
		return c.failure
	default:
		return nil
	}
}

func (c *clientConn) noteErr(err error) {
	if c.hooks.Error != nil && err != nil {
		c.hooks.Error(err)
	}
}

func (c *clientConn) noteStatus(code int) {
	if c.hooks.Status != nil {
		c.hooks.Status(code)
	}
}

// SessionID returns the server's session ID, "" before it is known and
// for a stateless server.
func (c *clientConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Read returns the next message from the server.
func (c *clientConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := c.failedWith(); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.failed:
		return nil, c.failure
	case <-c.done:
		return nil, io.EOF
	case msg := <-c.incoming:
		return msg, nil
	}
}

// deliver hands msg, from the response to a request sent with ctx, to
// Read; it returns false when the connection closed first.
func (c *clientConn) deliver(ctx context.Context, msg jsonrpc.Message) bool {
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.noteInitialized(r)
		if r.Error == nil {
			c.noteParamTools(r.Result)
		}
	}
	if c.hooks.Message != nil {
		c.hooks.Message(ctx, msg)
	}
	select {
	case c.incoming <- msg:
		return true
	case <-c.done:
		return false
	}
}

// noteInitialized takes the protocol version the session negotiated
// from the response to initialize (or server/discover): the SDK tells its
// own transport (sessionUpdated, unexported), but the response passes
// here first.
func (c *clientConn) noteInitialized(r *jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.initID.IsValid() || r.ID != c.initID {
		return
	}
	c.initID = jsonrpc.ID{}
	if r.Error != nil {
		return
	}
	var res struct {
		ProtocolVersion   string   `json:"protocolVersion"`
		SupportedVersions []string `json:"supportedVersions"`
	}
	if _, err := segjson.Parse(r.Result, &res, parseFlags); err != nil {
		return
	}
	switch {
	case c.discover != "":
		if slices.Contains(res.SupportedVersions, c.discover) {
			c.version = c.discover
		}
	case res.ProtocolVersion != "":
		c.version = res.ProtocolVersion
	}
}

// Write sends msg to the server in a POST with ctx; what the server
// answers a request with is read in the background, with ctx, until its
// response.
func (c *clientConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := c.failedWith(); err != nil {
		return err
	}
	call, method, summary, err := describe(msg)
	if err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("%s: %w", summary, err)
	}
	if (method == "initialize" || method == "server/discover") && call != nil {
		c.mu.Lock()
		c.initID, c.discover = call.ID, ""
		if method == "server/discover" {
			c.discover = metaVersion(call.Params)
		}
		c.mu.Unlock()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w: %w", summary, errRejected, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.setHeaders(req.Header, msg)
	resp, err := c.hc.Do(req)
	if err != nil {
		// The request did not reach the server: the message fails, not
		// the connection, as with the SDK's transport.
		c.noteErr(err)
		return fmt.Errorf("%s: %w: %w", summary, errRejected, err)
	}
	c.noteStatus(resp.StatusCode)
	if err := c.check(summary, resp); err != nil {
		switch {
		case method == "server/discover" || method == "subscriptions/listen":
			// A server without them answers so: the client falls back.
			if !errors.Is(err, errRejected) {
				err = fmt.Errorf("%w: %w", err, errRejected)
			}
		case !errors.Is(err, errRejected):
			c.fail(err)
		}
		return err
	}
	if err := c.adoptSession(summary, resp); err != nil {
		return err
	}
	if call == nil {
		// A notification or a response: 202 and no body.
		resp.Body.Close()
		if method == "notifications/initialized" {
			c.mu.Lock()
			v := c.version
			c.mu.Unlock()
			if v != "" && v < newProtocol {
				return c.openGET(ctx)
			}
		}
		return nil
	}
	switch ct := mediaType(resp.Header.Get("Content-Type")); ct {
	case "application/json":
		go c.readJSON(ctx, summary, resp)
	case "text/event-stream":
		go c.readSSE(ctx, summary, resp, call)
	default:
		resp.Body.Close()
		return fmt.Errorf("%s: unsupported content type %q", summary, ct)
	}
	return nil
}

// describe returns what Write needs to know of msg: the request when it
// is a call, its method (a request's) and the summary its errors start
// with; an error for a message that is neither a request nor a response.
func describe(msg jsonrpc.Message) (call *jsonrpc.Request, method, summary string, err error) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			call = m
		}
		return call, m.Method, fmt.Sprintf("sending %q", m.Method), nil
	case *jsonrpc.Response:
		return nil, "", fmt.Sprintf("sending the response to %v", m.ID.Raw()), nil
	}
	return nil, "", "", fmt.Errorf("%w: a message of type %T", errRejected, msg)
}

// adoptSession keeps the session ID resp carries, the first the server
// gave; one that changes it is an error (resp's body is then closed).
func (c *clientConn) adoptSession(summary string, resp *http.Response) error {
	sid := resp.Header.Get(sessionIDHeader)
	if sid == "" {
		return nil
	}
	c.mu.Lock()
	had := c.sessionID
	if had == "" {
		c.sessionID = sid
	}
	c.mu.Unlock()
	if had != "" && had != sid {
		resp.Body.Close()
		return fmt.Errorf("%s: the server changed its session ID from %q to %q", summary, had, sid)
	}
	return nil
}

// mediaType returns the media type of a Content-Type value, lower case.
func mediaType(v string) string {
	t, _, err := mime.ParseMediaType(v)
	if err != nil {
		return v
	}
	return t
}

// setHeaders sets the session's headers on a request carrying msg (nil
// for none): the session ID, the protocol version (the one a request's
// _meta names, else the initialize result's) and, on 2026-07-28, the
// Mcp-Method and Mcp-Name that repeat a request's body.
func (c *clientConn) setHeaders(h http.Header, msg jsonrpc.Message) {
	c.mu.Lock()
	sid, version := c.sessionID, c.version
	c.mu.Unlock()
	req, _ := msg.(*jsonrpc.Request)
	if req != nil {
		if v := metaVersion(req.Params); v != "" {
			version = v
		}
	}
	if sid != "" {
		h.Set(sessionIDHeader, sid)
	}
	if version != "" {
		h.Set(protocolVersionHeader, version)
	}
	if req == nil || version < newProtocol {
		return
	}
	h.Set(methodHeader, req.Method)
	switch req.Method {
	case "tools/call", "prompts/get", "resources/read":
		var p struct {
			Name      string          `json:"name"`
			URI       string          `json:"uri"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if _, err := segjson.Parse(req.Params, &p, parseFlags); err == nil {
			if req.Method == "resources/read" {
				h.Set(nameHeader, p.URI)
			} else {
				h.Set(nameHeader, p.Name)
			}
			if req.Method == "tools/call" {
				c.setParamHeaders(h, p.Name, p.Arguments)
			}
		}
	}
}

// metaVersion returns the protocol version params' _meta names, "" for
// none.
func metaVersion(params []byte) string {
	if !bytes.Contains(params, []byte(mcp.MetaKeyProtocolVersion)) {
		return ""
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if _, err := segjson.Parse(params, &p, parseFlags); err != nil {
		return ""
	}
	v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v
}

// check turns an unsuccessful response into the error the SDK's
// transport makes of it, and closes its body then: a JSON-RPC error body,
// and 429 and 5xx, fail the message only (errRejected); 404 on a session
// is mcp.ErrSessionMissing; any other status fails the connection.
func (c *clientConn) check(summary string, resp *http.Response) (err error) {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	defer resp.Body.Close()
	switch code {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable,
		http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return fmt.Errorf("%w: %s: %s", errRejected, summary, http.StatusText(code))
	}
	if body, err := readBody(resp, c.maxBytes); err == nil {
		if r, ok := decodeQuietly(body).(*jsonrpc.Response); ok && r.Error != nil {
			return fmt.Errorf("%s: %w: %w: %s", summary, r.Error, errRejected, http.StatusText(code))
		}
	}
	if sid := c.SessionID(); code == http.StatusNotFound && sid != "" {
		return fmt.Errorf("%s: session %s: %w", summary, sid, mcp.ErrSessionMissing)
	}
	return fmt.Errorf("%s: %s", summary, http.StatusText(code))
}

func decodeQuietly(data []byte) jsonrpc.Message {
	m, _ := DecodeMessage(data)
	return m
}

// readBody reads a response's body whole, refusing one over max bytes
// before reading it when its length is known.
func readBody(resp *http.Response, max int) ([]byte, error) {
	if n := resp.ContentLength; n > int64(max) {
		return nil, fmt.Errorf("%w: a body of %d bytes, more than %d", errEventTooLarge, n, max)
	} else if n >= 0 {
		buf := make([]byte, n)
		_, err := io.ReadFull(resp.Body, buf)
		return buf, err
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err == nil && len(buf) > max {
		return nil, fmt.Errorf("%w: a body of more than %d bytes", errEventTooLarge, max)
	}
	return buf, err
}

// readJSON reads a JSON response to a request sent with ctx.
func (c *clientConn) readJSON(ctx context.Context, summary string, resp *http.Response) {
	body, err := readBody(resp, c.maxBytes)
	resp.Body.Close()
	if err != nil {
		if ctx.Err() == nil {
			c.fail(fmt.Errorf("%s: reading the response: %w", summary, err))
		}
		return
	}
	msg, err := DecodeMessage(body)
	if err != nil {
		c.fail(fmt.Errorf("%s: decoding the response: %w", summary, err))
		return
	}
	c.deliver(ctx, msg)
}

// Close ends the session: a DELETE tells the server, unless it has no
// session or said it lost it; then the streams are cancelled.
func (c *clientConn) Close() error {
	c.closeOnce.Do(func() {
		if sid := c.SessionID(); sid != "" && !errors.Is(c.failedWith(), mcp.ErrSessionMissing) {
			ctx, stop := context.WithTimeout(c.ctx, closeDeleteTimeout)
			defer stop()
			req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
			if err == nil {
				c.setHeaders(req.Header, nil)
				var resp *http.Response
				if resp, err = c.hc.Do(req); err == nil {
					resp.Body.Close()
				}
			}
			c.closeErr = err
		}
		c.cancel()
		close(c.done)
	})
	return c.closeErr
}
