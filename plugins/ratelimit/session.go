package ratelimit

import (
	"crypto/rand"
	"encoding/hex"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// Sessions without a transport session ID (stdio, in-memory) are told
// apart by their *mcp.ServerSession: each gets a process-unique key, which
// the map forgets when the session is garbage collected.
var (
	localKeys  sync.Map // weak.Pointer[mcp.ServerSession] → string
	localSeq   atomic.Uint64
	localStamp = newStamp()
)

func newStamp() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sessionKey returns the key of r's session: its transport ID, or a key of
// its own for sessions without one; "" when the request has no session.
func sessionKey(r *flows.Request) string {
	if r.SessionID != "" {
		return r.SessionID
	}
	if r.Session == nil {
		return ""
	}
	return localKey(r.Session)
}

func localKey(ss *mcp.ServerSession) string {
	wp := weak.Make(ss)
	if v, ok := localKeys.Load(wp); ok {
		return v.(string)
	}
	key := "local-" + localStamp + "-" + strconv.FormatUint(localSeq.Add(1), 36)
	if v, loaded := localKeys.LoadOrStore(wp, key); loaded {
		return v.(string)
	}
	runtime.AddCleanup(ss, func(wp weak.Pointer[mcp.ServerSession]) { localKeys.Delete(wp) }, wp)
	return key
}
