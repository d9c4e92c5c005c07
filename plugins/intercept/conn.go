package intercept

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// conn is the plugin's connection to one interceptor host. A session that
// fails (the process exits, the HTTP session is gone) is dropped, and the
// next invocation connects again (restarting the command), at most once per
// RetryAfter. A host that leaves an invocation unanswered is stalled: its
// invocations fail at once, without waiting for their timeouts, until a
// probe finds it answering again.
type conn struct {
	srv        Server
	client     *mcp.Client
	httpClient *http.Client
	connectFor time.Duration
	retryAfter time.Duration
	log        *slog.Logger

	mu       sync.Mutex
	cs       *mcp.ClientSession
	failedAt time.Time // when the last reconnect failed
	lastErr  error
	closed   bool
	// stalled is the error of the host's invocations while it is stalled,
	// nil when it is not.
	stalled error
	// invokeMethod is the spelling of invoke the host answers:
	// wire.MethodInvoke, or wire.MethodInvokePlural once the host has
	// answered the singular with method not found.
	invokeMethod string
	done         chan struct{} // closed by close: stops the probe
}

func newConn(srv Server, client *mcp.Client, connectFor, retryAfter time.Duration, log *slog.Logger) *conn {
	c := &conn{srv: srv, client: client, connectFor: connectFor, retryAfter: retryAfter, log: log, done: make(chan struct{}), invokeMethod: wire.MethodInvoke}
	if srv.URL != "" {
		c.httpClient = srv.HTTPClient
		if c.httpClient == nil {
			t := http.DefaultTransport.(*http.Transport).Clone()
			t.MaxIdleConnsPerHost = 64
			c.httpClient = &http.Client{Transport: t}
		}
		if srv.Token != "" {
			hc := *c.httpClient
			next := hc.Transport
			if next == nil {
				next = http.DefaultTransport
			}
			hc.Transport = bearer{token: srv.Token, next: next}
			c.httpClient = &hc
		}
	}
	return c
}

// bearer adds the Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

// RoundTrip sends r with the token.
func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// transport returns a new transport to the host.
func (c *conn) transport(ctx context.Context) (mcp.Transport, error) {
	switch {
	case c.srv.Transport != nil:
		return c.srv.Transport(ctx)
	case c.srv.URL != "":
		return &mcp.StreamableClientTransport{Endpoint: c.srv.URL, HTTPClient: c.httpClient, MaxRetries: -1, DisableStandaloneSSE: true}, nil
	}
	cmd := exec.Command(c.srv.Command[0], c.srv.Command[1:]...)
	cmd.Env, cmd.Dir = c.srv.environ(), c.srv.Dir
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil
}

// connect opens a session. ctx bounds the connection (initialize), not the
// session, which lives until it fails or the plugin closes.
func (c *conn) connect(ctx context.Context) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, c.connectFor)
	defer cancel()
	// Protocol 2025-11-25: on 2026-07-28 every request carries the
	// client's info and capabilities in _meta, which the host decodes and
	// checks on every invocation; the extension needs neither.
	t, err := c.transport(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", c.where(), err)
	}
	cs, err := c.client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", c.where(), err)
	}
	go func() {
		// A session that ends (the command exited, the connection broke)
		// is dropped: the next invocation reconnects.
		_ = cs.Wait()
		c.drop(cs)
	}()
	return cs, nil
}

// where names the host for messages: its URL or its program.
func (c *conn) where() string {
	switch {
	case c.srv.URL != "":
		return fmt.Sprintf("server %q (%s)", c.srv.Name, c.srv.URL)
	case c.srv.Transport != nil:
		return fmt.Sprintf("server %q (in process)", c.srv.Name)
	}
	return fmt.Sprintf("server %q (command %s)", c.srv.Name, c.srv.Command[0])
}

// session returns the open session, connecting when there is none;
// fresh reports that it connected.
func (c *conn) session(ctx context.Context) (cs *mcp.ClientSession, fresh bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, false, fmt.Errorf("%s: the plugin is closed", c.where())
	}
	if c.cs != nil {
		return c.cs, false, nil
	}
	if !c.failedAt.IsZero() && time.Since(c.failedAt) < c.retryAfter {
		return nil, false, c.lastErr
	}
	cs, err = c.connect(context.WithoutCancel(ctx))
	if err != nil {
		c.failedAt, c.lastErr = time.Now(), err
		return nil, false, err
	}
	c.cs, c.failedAt, c.lastErr = cs, time.Time{}, nil
	return cs, true, nil
}

// drop forgets cs if it is the current session, and closes it.
func (c *conn) drop(cs *mcp.ClientSession) {
	c.mu.Lock()
	if c.cs == cs {
		c.cs = nil
	}
	c.mu.Unlock()
	_ = cs.Close()
}

// list returns the host's interceptors, at start. A host that also serves
// tools, prompts or resources is warned of: the working group decided an
// interceptor server should not, since it sits beside the operation it
// governs, not in its path.
func (c *conn) list(ctx context.Context) ([]wire.Interceptor, error) {
	cs, _, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	if served := alsoServes(cs.InitializeResult()); len(served) > 0 {
		c.log.Warn("intercept: an interceptor host should not also serve "+strings.Join(served, ", "),
			"server", c.srv.Name, "serves", served)
	}
	ctx, cancel := context.WithTimeout(ctx, c.connectFor)
	defer cancel()
	res, err := mcp.CallCustomMethod[*wire.ListParams, *wire.ListResult](ctx, cs, wire.MethodList, &wire.ListParams{})
	if err != nil {
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeMethodNotFound {
			return nil, fmt.Errorf("%s does not serve interceptors (%s: method not found)", c.where(), wire.MethodList)
		}
		return nil, fmt.Errorf("%s: %s: %w", c.where(), wire.MethodList, err)
	}
	return res.Interceptors, nil
}

// invoke calls interceptor/invoke. An error that is not the host's
// answer (the connection failed, or the host lost the session: it
// restarted) drops the session; when the session was not new, the
// invocation is sent once more on a new one. That is safe: an interceptor
// decides from the payload alone, and a host that lost the session never
// ran the first invocation. So a host's restart costs one reconnection,
// not a call. A host that answers interceptor/invoke with method not
// found is sent interceptors/invoke, the plural the working group has
// under discussion, from then on.
func (c *conn) invoke(ctx context.Context, p *wire.InvokeParams) (*wire.Result, error) {
	for {
		c.mu.Lock()
		stalled, method := c.stalled, c.invokeMethod
		c.mu.Unlock()
		if stalled != nil {
			return nil, stalled
		}
		cs, fresh, err := c.session(ctx)
		if err != nil {
			return nil, err
		}
		res, err := mcp.CallCustomMethod[*wire.InvokeParams, *wire.Result](ctx, cs, method, p)
		if err == nil {
			return res, nil
		}
		if method == wire.MethodInvoke && methodNotFound(err) {
			c.mu.Lock()
			c.invokeMethod = wire.MethodInvokePlural
			c.mu.Unlock()
			continue
		}
		if errors.Is(context.Cause(ctx), errNoAnswer) {
			return nil, c.stall(p.Name)
		}
		if !connectionFailed(err) || ctx.Err() != nil {
			return nil, err
		}
		c.drop(cs)
		if fresh {
			return nil, err
		}
	}
}

// methodNotFound reports whether err is the host's JSON-RPC answer that
// it has no such method.
func methodNotFound(err error) bool {
	var rpc *jsonrpc.Error
	return errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeMethodNotFound
}

// alsoServes returns which of tools, prompts and resources the host's
// initialize result declares.
func alsoServes(r *mcp.InitializeResult) []string {
	if r == nil || r.Capabilities == nil {
		return nil
	}
	var served []string
	if r.Capabilities.Tools != nil {
		served = append(served, "tools")
	}
	if r.Capabilities.Prompts != nil {
		served = append(served, "prompts")
	}
	if r.Capabilities.Resources != nil {
		served = append(served, "resources")
	}
	return served
}

// connectionFailed reports whether err is no answer of the host but the
// failure of the session: an error of the transport, or one the SDK's
// JSON-RPC layer makes itself when its connection closes or its transport
// refuses a message.
func connectionFailed(err error) bool {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return true
	}
	switch rpc.Code {
	case -32003, -32004, -32005: // client closing, server closing, rejected by transport
		return true
	}
	return false
}

// errNoAnswer is the cause of an invocation's context when the host did
// not answer within the interceptor's timeout.
var errNoAnswer = errors.New("intercept: no answer in time")

// stall marks the host stalled after interceptor name left an invocation
// unanswered, and starts the probe that ends the stall; it returns the
// invocation's error.
func (c *conn) stall(name string) error {
	err := fmt.Errorf("%s did not answer interceptor %q in time; its invocations fail at once until it answers again", c.where(), name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stalled == nil && !c.closed {
		c.stalled = err
		c.log.Warn("intercept: host stalled; probing it", slog.String("server", c.srv.Name), slog.String("interceptor", name))
		go c.probe()
	}
	return err
}

// probe pings the stalled host every RetryAfter (each ping, and the
// connection it may need, bounded by ConnectTimeout) until it answers,
// then ends the stall. A session that does not answer is dropped.
func (c *conn) probe() {
	for {
		select {
		case <-c.done:
			return
		case <-time.After(c.retryAfter):
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.connectFor)
		cs, _, err := c.session(ctx)
		if err == nil {
			if err = cs.Ping(ctx, nil); err != nil {
				go c.drop(cs) // closing may wait on the host too
			}
		}
		cancel()
		if err == nil {
			c.mu.Lock()
			c.stalled = nil
			c.mu.Unlock()
			c.log.Info("intercept: host answers again", slog.String("server", c.srv.Name))
			return
		}
	}
}

// close closes the session; later invocations fail.
func (c *conn) close() error {
	c.mu.Lock()
	cs := c.cs
	if !c.closed {
		close(c.done)
	}
	c.cs, c.closed = nil, true
	c.mu.Unlock()
	if cs == nil {
		return nil
	}
	return cs.Close()
}
