package streamable

import (
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// CallCheck looks at a POST that is one tools/call, once its body is
// decoded and before the call runs, and returns the handler that answers
// the POST in the call's place (an HTTP 403 scope challenge, say), or nil
// to let the call run. id is the call's ID, tool the tool it names and
// args its arguments (a slice of the body: not to be kept). It runs on
// the POST's goroutine and must not block on the session.
type CallCheck func(r *http.Request, id jsonrpc.ID, tool string, args json.RawMessage) http.Handler

// SetCallCheck makes h run check on each POST that is one tools/call (a
// batch is not checked; its calls are the server's to refuse). It may be
// called while h serves; nil removes the check.
func (h *Handler) SetCallCheck(check CallCheck) {
	if check == nil {
		h.check.Store(nil)
		return
	}
	h.check.Store(&check)
}

// checkCall runs the call check on msgs, the messages of one POST that is
// no batch, and reports whether it answered the POST.
func (h *Handler) checkCall(w http.ResponseWriter, r *http.Request, msgs []jsonrpc.Message) bool {
	check := h.check.Load()
	if check == nil || len(msgs) != 1 {
		return false
	}
	req, ok := msgs[0].(*jsonrpc.Request)
	if !ok || req.Method != "tools/call" || !req.ID.IsValid() {
		return false
	}
	// Only the name and the arguments: the params are decoded again by
	// the session, which owns them.
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if _, err := segjson.Parse(req.Params, &params, parseFlags); err != nil {
		return false // the session answers the malformed params
	}
	answer := (*check)(r, req.ID, params.Name, params.Arguments)
	if answer == nil {
		return false
	}
	answer.ServeHTTP(w, r)
	return true
}
