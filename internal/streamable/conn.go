package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errRejected is the SDK's "rejected by transport" error (its code,
// -32005): a Write that fails with it fails that message only, not the
// session, as when the call it belongs to has ended.
var errRejected = &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}

func rejected(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errRejected, fmt.Sprintf(format, args...))
}

type callKey struct{}

// ErrNoStream is the error of a message that found no stream open to its
// client: a notification sent between a client's requests when it keeps
// no GET stream open. It is normal over streamable HTTP; the framework
// counts such notifications rather than report them.
var ErrNoStream = errors.New("no open stream for the message")

// errClientGone fails Read when a stateless POST's client went away; it
// wraps context.Canceled, as the cancellation of the calls it causes is.
var errClientGone = fmt.Errorf("the client disconnected: %w", context.Canceled)

// WithRequest returns ctx carrying extra, the RequestExtra the transport
// gave a request: a receiving middleware calls it so that what the
// request's handler sends (progress, log messages, requests to the client)
// goes out on that request's HTTP response. The SDK keeps its own record
// of the request a context belongs to unexported; this is hookflow's.
func WithRequest(ctx context.Context, extra *mcp.RequestExtra) context.Context {
	if extra == nil {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, extra)
}

// callInfo is what the transport knows of a call in flight: its ID and
// the network address of the client that sent it.
type callInfo struct {
	id     jsonrpc.ID
	client string
}

// transport is the mcp.Transport of one session: Connect hands the SDK its
// conn.
type transport struct{ c *conn }

func (t transport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// SupportsProtocolVersion serves 2026-07-28 (and later) on stateless
// sessions only, as the SDK's transport does: that protocol has no
// sessions.
func (t transport) SupportsProtocolVersion(v string) bool {
	if v >= newProtocol {
		return t.c.stateless && slices.Contains(t.c.versions, v)
	}
	return slices.Contains(t.c.versions, v)
}

var (
	_ mcp.Transport                = transport{}
	_ mcp.ProtocolVersionSupporter = transport{}
	_ mcp.Connection               = (*conn)(nil)
)

// conn is one session's mcp.Connection: Read hands the SDK the messages of
// POSTs, Write routes the SDK's messages to the HTTP response they belong
// to.
type conn struct {
	id        string
	stateless bool
	versions  []string
	incoming  chan jsonrpc.Message
	done      chan struct{}
	// broken, once closed, makes Read fail: the SDK then cancels every call
	// in flight (the way to cancel a stateless call whose client left).
	broken    chan struct{}
	breakOnce sync.Once
	closeOnce sync.Once
	onClose   func()

	mu sync.Mutex
	// calls maps each unanswered call to the stream its answer goes to.
	calls map[jsonrpc.ID]*stream
	// extras maps the RequestExtra of each unanswered call to its ID, for
	// what its handler sends (see WithRequest).
	extras  map[*mcp.RequestExtra]callInfo
	extraOf map[jsonrpc.ID]*mcp.RequestExtra
	// standalone is the GET stream, nil when none is open.
	standalone *stream
	// listen is the stream of a subscriptions/listen call, nil when none.
	listen *stream

	// store keeps the events of the session's streams for a client to
	// resume them (nil: none); with it, standalone is the GET stream
	// whether a GET carries it or not, and streams holds each POST's
	// stream that has calls left, by stream ID.
	store   mcp.EventStore
	streams map[string]*stream
}

func newConn(id string, stateless bool, versions []string, onClose func()) *conn {
	return &conn{
		id: id, stateless: stateless, versions: versions, onClose: onClose,
		incoming: make(chan jsonrpc.Message, 8),
		done:     make(chan struct{}),
		broken:   make(chan struct{}),
		calls:    map[jsonrpc.ID]*stream{},
		extras:   map[*mcp.RequestExtra]callInfo{},
		extraOf:  map[jsonrpc.ID]*mcp.RequestExtra{},
	}
}

func (c *conn) SessionID() string { return c.id }

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.broken:
		return nil, errClientGone
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// fail makes Read fail, cancelling the calls in flight.
func (c *conn) fail() { c.breakOnce.Do(func() { close(c.broken) }) }

// Close implements mcp.Connection; the SDK calls it when the session ends.
func (c *conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.done)
		if c.onClose != nil {
			c.onClose()
		}
		if c.store != nil {
			err = c.store.SessionClosed(context.Background(), c.id)
		}
	})
	return err
}

// closed reports whether the session has ended.
func (c *conn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// publish hands msgs to the SDK; false when the session ended first.
func (c *conn) publish(msgs []jsonrpc.Message) bool {
	for _, m := range msgs {
		select {
		case c.incoming <- m:
		case <-c.done:
			return false
		}
	}
	return true
}

// register records the calls of a POST as answered on s; it refuses (and
// registers none) when one of their IDs is in flight already.
func (c *conn) register(s *stream, calls []*jsonrpc.Request, client string) (dup jsonrpc.ID, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range calls {
		if _, busy := c.calls[r.ID]; busy {
			return r.ID, false
		}
	}
	for _, r := range calls {
		c.calls[r.ID] = s
		if ex, _ := r.Extra.(*mcp.RequestExtra); ex != nil {
			c.extras[ex] = callInfo{id: r.ID, client: client}
			c.extraOf[r.ID] = ex
		}
	}
	if s.listen {
		c.listen = s
	}
	if s.rec != nil {
		c.streams[s.rec.id] = s
	}
	return jsonrpc.ID{}, true
}

// forget drops what register recorded for s's calls that are still
// unanswered (its client left), and s as the listen stream.
func (c *conn) forget(s *stream, calls []*jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range calls {
		if c.calls[r.ID] == s {
			delete(c.calls, r.ID)
		}
		if ex, _ := r.Extra.(*mcp.RequestExtra); ex != nil && c.extraOf[r.ID] == ex {
			delete(c.extras, ex)
			delete(c.extraOf, r.ID)
		}
	}
	if c.listen == s {
		c.listen = nil
	}
}

// streamOf returns the stream that carries the answer to id, nil when the
// call has been answered or its client left.
func (c *conn) streamOf(id jsonrpc.ID) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[id]
}

// Write implements mcp.Connection: a response goes to the response of the
// POST that carried its call; a notification or request sent while
// handling a call (its context carries the call, see WithRequest) goes to
// that call's response too; anything else goes to the GET stream or the
// listen stream. A message with nowhere to go is rejected: the SDK fails
// that message, not the session.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && (c.stateless || c.id == "") {
		return rejected("stateless servers cannot make requests")
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	resp, isResp := msg.(*jsonrpc.Response)
	var s *stream
	c.mu.Lock()
	if isResp {
		s = c.calls[resp.ID]
		delete(c.calls, resp.ID)
	} else if ex, _ := ctx.Value(callKey{}).(*mcp.RequestExtra); ex != nil {
		if call, ok := c.extras[ex]; ok {
			s = c.calls[call.id]
			if s != nil && s.mode == modeJSON {
				// A JSON response carries answers only.
				s = c.standalone
			}
		}
	} else if c.listen != nil {
		s = c.listen
	} else {
		s = c.standalone
	}
	c.mu.Unlock()
	if isResp {
		// The call is answered: what its handler sends from now on has
		// no call to go with.
		c.dropExtra(resp.ID)
	}
	if s == nil {
		return fmt.Errorf("%w: %w", errRejected, ErrNoStream)
	}
	if c.closed() {
		return errors.New("session is closed")
	}
	err = s.deliver(data, resp)
	if isResp && s.rec != nil {
		c.settle(s)
	}
	if err != nil {
		return rejected("%v", err)
	}
	return nil
}

func (c *conn) dropExtra(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ex, ok := c.extraOf[id]; ok {
		delete(c.extras, ex)
		delete(c.extraOf, id)
	}
}
