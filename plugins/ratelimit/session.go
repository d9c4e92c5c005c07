package ratelimit

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
)

// Sessions without a transport session ID (stdio, in-memory) are told
// apart by their *mcp.ServerSession: each gets a process-unique key, which
// is forgotten when the session is garbage collected. The keys are the
// package's, not a plugin's, so that plugins sharing a backend count a
// session under one key.
var (
	localKeys  = flows.NewSessionState("ratelimit.local-key", newLocalKey)
	localSeq   atomic.Uint64
	localStamp = newStamp()
)

func newStamp() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func newLocalKey() string {
	return "local-" + localStamp + "-" + strconv.FormatUint(localSeq.Add(1), 36)
}

// sessionKey returns the key of r's session: its transport ID, or a key of
// its own for sessions without one; "" when the request has no session.
func sessionKey(r *flows.Request) string {
	if r.SessionID != "" {
		return r.SessionID
	}
	return localKeys.Get(r.Session)
}
