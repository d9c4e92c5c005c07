package sessiongate

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
)

// A key function says which session a request belongs to (see
// [Config.Key]); "" means it cannot tell, and the gate refuses the gated
// tools' calls (the server's log says why).

// BySession keys a request by its transport session ID (stateful
// streamable HTTP), or, for sessions without one (stdio, in-memory), by
// its *mcp.ServerSession, which lives as long as the connection. Over
// stateless HTTP, where every request is a session of its own, it returns
// "": use [ByPrincipal] or [ByHeader] there.
func BySession(r *flows.Request) string {
	switch {
	case r.SessionID != "":
		return "s:" + r.SessionID
	case r.Session == nil || r.Header != nil:
		return ""
	}
	return "l:" + localKeys.Get(r.Session)
}

// ByPrincipal keys a request by its authenticated user (the bearer token's
// UserID, see the auth plugin): a user's sessions share one state. It
// returns "" for unauthenticated requests.
func ByPrincipal(r *flows.Request) string {
	if u := r.Principal(); u != "" {
		return "u:" + u
	}
	return ""
}

// ByHeader keys a request by the value of an HTTP header its client sends
// on every request, e.g. a conversation ID; "" when the header is absent
// or the transport is not HTTP.
func ByHeader(name string) func(r *flows.Request) string {
	return func(r *flows.Request) string {
		if v := r.Header.Get(name); v != "" {
			return "h:" + v
		}
		return ""
	}
}

// Sessions without a transport ID are told apart by their
// *mcp.ServerSession: each gets a process-unique key, which is forgotten
// when the session is garbage collected.
var (
	localKeys  = flows.NewSessionState("sessiongate.local-key", newLocalKey)
	localSeq   atomic.Uint64
	localStamp = newStamp()
)

func newStamp() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func newLocalKey() string {
	return localStamp + "-" + strconv.FormatUint(localSeq.Add(1), 36)
}
