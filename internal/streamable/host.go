package streamable

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Host is the server above a [Handler]: what the transport asks of it
// beyond the SDK's mcp.Server, which runs the sessions. The transport
// owns this contract; the server implements it.
//
// Order: for each POST the handler calls ReadBody once, after the checks
// of its headers (Host, Origin, Content-Type, Accept, Last-Event-ID) and
// of its session, and before anything is decoded; it gives back the hold
// once the body is decoded. Then, for a POST of one tools/call request
// with an ID (no batch), CheckCall, after the protocol version is
// checked and before the Mcp-* headers are; then ParamHeaders, for a
// 2026-07-28 tools/call whose Mcp-Method and Mcp-Name headers match;
// then the session gets the messages. GET and DELETE call none of them.
//
// Concurrency: every method runs on the goroutine of the POST it is
// about, for many POSTs at once (of one session too), and must not block
// on a session: the session is not running that POST's messages yet.
type Host interface {
	// ReadBody reads r's body within the server's bounds, and returns
	// what gives back the room it holds among the bodies in flight once
	// the body is decoded (nil: nothing to give back). On a refusal it
	// writes the response (413, 408, 503…) and returns false. The
	// messages decoded point into data, which the host must not change.
	ReadBody(w http.ResponseWriter, r *http.Request) (data []byte, hold Releaser, ok bool)
	// CheckCall looks at call, the one tools/call request of r, before
	// it runs, and returns the handler that answers r in its place (an
	// HTTP 403 scope challenge, say), or nil to let it run. call goes to
	// the session next, and its params are a slice of the body: neither
	// is to be kept or changed. A batch's calls are not checked; they are
	// the server's to refuse.
	CheckCall(r *http.Request, call *jsonrpc.Request) http.Handler
	// ParamHeaders returns the Mcp-Param-* header checks of the tool
	// named tool (see CompileParamHeaders), nil for none. It is called
	// on every 2026-07-28 call, so it returns what was compiled once per
	// tool.
	ParamHeaders(tool string) *ParamHeaders
}

// Releaser gives back what a body read holds; Release may be called more
// than once.
type Releaser interface{ Release() }

// checkCall asks the host about msgs, the messages of one POST that is
// no batch, and reports whether the host's answer answered the POST.
func (h *Handler) checkCall(w http.ResponseWriter, r *http.Request, msgs []jsonrpc.Message) bool {
	if len(msgs) != 1 {
		return false
	}
	req, ok := msgs[0].(*jsonrpc.Request)
	if !ok || req.Method != "tools/call" || !req.ID.IsValid() {
		return false
	}
	answer := h.opts.Host.CheckCall(r, req)
	if answer == nil {
		return false
	}
	answer.ServeHTTP(w, r)
	return true
}
