package wire

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ErrorData is the data of the extension's JSON-RPC errors; which fields
// are set depends on the error (see the constructors).
type ErrorData struct {
	// Name is the interceptor asked for (unknown name, hook not advertised).
	Name string `json:"name,omitempty"`
	// Event and Phase are the invocation's, when its hook is not
	// advertised or it timed out.
	Event string `json:"event,omitempty"`
	Phase Phase  `json:"phase,omitempty"`
	// AdvertisedHooks are the named interceptor's hooks, so that the
	// invoker can correct its routing.
	AdvertisedHooks []Hook `json:"advertisedHooks,omitempty"`
	// Interceptor and Reason describe a failed or timed-out execution;
	// Reason is "timeout" for a timeout.
	Interceptor string `json:"interceptor,omitempty"`
	Reason      string `json:"reason,omitempty"`
	// TimeoutMs is the bound that was exceeded.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// Detail explains malformed params.
	Detail string `json:"detail,omitempty"`
}

// ReasonTimeout is ErrorData.Reason of a timed-out invocation.
const ReasonTimeout = "timeout"

// CodeTimeout is the JSON-RPC code of a timed-out invocation: -32000, the
// first of the range JSON-RPC leaves to servers, as the SEP's text
// requires ("Timeout and Cancellation"). An execution that fails otherwise
// is -32603.
const CodeTimeout int64 = -32000

func rpcError(code int64, msg string, data ErrorData) *jsonrpc.Error {
	b, _ := json.Marshal(data) // ErrorData always marshals
	return &jsonrpc.Error{Code: code, Message: msg, Data: b}
}

// UnknownName is the error of an invocation of an interceptor the host does
// not have: -32602 with the name.
func UnknownName(name string) *jsonrpc.Error {
	return rpcError(jsonrpc.CodeInvalidParams, "unknown interceptor "+quote(name), ErrorData{Name: name})
}

// HookNotAdvertised is the error of an invocation for an event and phase
// the interceptor does not advertise: -32602 with its hooks.
func HookNotAdvertised(i *Interceptor, event string, phase Phase) *jsonrpc.Error {
	hooks := i.Hooks
	if hooks == nil {
		hooks = []Hook{}
	}
	return rpcError(jsonrpc.CodeInvalidParams, "hook not advertised by interceptor "+quote(i.Name),
		ErrorData{Name: i.Name, Event: event, Phase: phase, AdvertisedHooks: hooks})
}

// InvalidParams is the error of malformed params or a config the
// interceptor's schema refuses: -32602.
func InvalidParams(detail string) *jsonrpc.Error {
	return rpcError(jsonrpc.CodeInvalidParams, "invalid params: "+detail, ErrorData{Detail: detail})
}

// Failed is the error of an interceptor whose execution failed (it
// returned an error or panicked): -32603. A failure is never a verdict.
func Failed(interceptor, reason string) *jsonrpc.Error {
	return rpcError(jsonrpc.CodeInternalError, "interceptor execution failed", ErrorData{Interceptor: interceptor, Reason: reason})
}

// TimedOut is the error of an invocation that ran past its timeoutMs:
// [CodeTimeout] with reason "timeout".
func TimedOut(interceptor string, timeoutMs int64, phase Phase) *jsonrpc.Error {
	return rpcError(CodeTimeout, "interceptor execution timeout",
		ErrorData{Interceptor: interceptor, Reason: ReasonTimeout, TimeoutMs: timeoutMs, Phase: phase})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
