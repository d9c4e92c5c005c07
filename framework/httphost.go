package framework

import (
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"

	"github.com/hookflow/hookflow/internal/streamable"
)

// httpHandler is the handler newHTTPHandler makes: hookflow's transport,
// and the server's side of the seam under it (streamable.Host): the body
// bounds of the handler's options, the tools' header checks and the call
// check of CheckCalls.
type httpHandler struct {
	transport *streamable.Handler
	srv       *Server
	body      bodyReader
	// check is the CallCheck of CheckCalls, nil when none.
	check atomic.Pointer[CallCheck]
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.transport.ServeHTTP(w, r)
}

// ReadBody reads a POST's body for the transport within the handler's
// bounds (see bodyReader).
func (h *httpHandler) ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, streamable.Releaser, bool) {
	return h.body.read(w, r)
}

// ParamHeaders returns the Mcp-Param-* header checks of the tool named
// name, compiled from its input schema on first use.
func (h *httpHandler) ParamHeaders(name string) *streamable.ParamHeaders {
	e, ok := h.srv.index.Load().tools[name]
	if !ok || e.headers == nil {
		return nil
	}
	return e.headers()
}

// callParamsFlags decode a call's params as the transport decodes its
// messages: field names as written, the arguments a slice of the body.
const callParamsFlags = segjson.DontMatchCaseInsensitiveStructFields | segjson.DontCopyRawMessage

// CheckCall runs the check of CheckCalls, if any, on call; the params are
// decoded only then, and only the name and the arguments: the session
// decodes them again, as it owns them.
func (h *httpHandler) CheckCall(r *http.Request, call *jsonrpc.Request) http.Handler {
	check := h.check.Load()
	if check == nil {
		return nil
	}
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if _, err := segjson.Parse(call.Params, &params, callParamsFlags); err != nil {
		return nil // the session answers the malformed params
	}
	return (*check)(r, call.ID, params.Name, params.Arguments)
}

// setCheck makes check the call check; nil removes it.
func (h *httpHandler) setCheck(check CallCheck) {
	if check == nil {
		h.check.Store(nil)
		return
	}
	h.check.Store(&check)
}
