package upstream

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call is a request the gateway forwards through an upstream session, in
// flight or just ended.
type Call struct {
	// Key names the call to the upstream: it is the progress token sent
	// upstream, and marks the requests an HTTP upstream sends about the
	// call (see package gateway's related.go).
	Key string
	// Ctx is the forwarded request's context, which routes what is sent
	// to the client about the call onto the call's stream.
	Ctx context.Context
	// Session is the client session that made the call, nil for none.
	Session *mcp.ServerSession
	// Token is the client's progress token, nil for none.
	Token any
	// Progressed, when not nil, is called for each progress notification
	// of the call (it restarts the call's timeout).
	Progressed func()
}

// callLinger is how long an ended call's key still finds it: the SDK
// hands a response to its caller at once but queues the notifications
// before it, and a call's late progress must still reach the client.
const callLinger = 5 * time.Second

// Calls holds the calls in flight through one upstream session, so that
// what the upstream sends about a call (progress, log messages, sampling,
// elicitation and roots requests) reaches the client session that made
// it. Its zero value is ready; it is safe for concurrent use.
type Calls struct {
	mu    sync.Mutex
	next  uint64
	byKey map[string]*Call
	// order holds the calls in flight, oldest first.
	order []*Call
}

// callKey is the context key of the [Call] a forwarded request belongs
// to.
type callKey struct{}

// CallOf returns the call whose context ctx is or derives from (see
// [Calls.Begin]), or nil.
func CallOf(ctx context.Context) *Call {
	k, _ := ctx.Value(callKey{}).(*Call)
	return k
}

// Begin registers a call in flight of client session ss (nil for none)
// with the client's progress token (nil for none), and returns the
// context to send it upstream with (which [CallOf] reads), the progress
// token to send upstream (nil when token and progressed are: progress
// restarts no timeout) and the function that ends the call.
func (cs *Calls) Begin(ctx context.Context, ss *mcp.ServerSession, token any, progressed func()) (callCtx context.Context, upToken any, end func()) {
	cs.mu.Lock()
	if cs.byKey == nil {
		cs.byKey = map[string]*Call{}
	}
	cs.next++
	k := &Call{Key: "hookflow-gw-" + strconv.FormatUint(cs.next, 36), Ctx: ctx, Session: ss, Token: token, Progressed: progressed}
	cs.byKey[k.Key] = k
	cs.order = append(cs.order, k)
	cs.mu.Unlock()
	if token != nil || progressed != nil {
		upToken = k.Key
	}
	return context.WithValue(ctx, callKey{}, k), upToken, func() {
		cs.mu.Lock()
		for i, o := range cs.order {
			if o == k {
				cs.order = append(cs.order[:i], cs.order[i+1:]...)
				break
			}
		}
		cs.mu.Unlock()
		time.AfterFunc(callLinger, func() {
			cs.mu.Lock()
			delete(cs.byKey, k.Key)
			cs.mu.Unlock()
		})
	}
}

// Latest returns the newest call in flight, or nil.
func (cs *Calls) Latest() *Call {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.order) == 0 {
		return nil
	}
	return cs.order[len(cs.order)-1]
}

// Get returns the call of key, in flight or ended less than a few
// seconds ago, or nil.
func (cs *Calls) Get(key string) *Call {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byKey[key]
}
