package wire

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListParams are the parameters of interceptors/list.
type ListParams struct {
	mcp.ParamsBase
	// Event, when set, keeps the interceptors with a hook matching it. It
	// is one event name, never a pattern.
	Event string `json:"event,omitempty"`
}

// ListResult is the result of interceptors/list.
type ListResult struct {
	mcp.ResultBase
	Interceptors []Interceptor `json:"interceptors"`
}

// InvokeParams are the parameters of interceptor/invoke: one interceptor,
// one event and phase, one payload.
type InvokeParams struct {
	mcp.ParamsBase
	// Name is the interceptor to invoke.
	Name string `json:"name"`
	// Event and Phase name the lifecycle event being intercepted.
	Event string `json:"event"`
	Phase Phase  `json:"phase"`
	// Payload is the value under governance: for a request, the request's
	// method and params ({"method": "tools/call", "params": {…}}); for a
	// response, the result.
	Payload json.RawMessage `json:"payload"`
	// Config is interceptor-specific configuration (see the descriptor's
	// ConfigSchema).
	Config map[string]any `json:"config,omitempty"`
	// TimeoutMs bounds the invocation: past it the host cancels the
	// interceptor and answers with a timeout error.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// Context tells the interceptor who asks and for which trace.
	Context *InvocationContext `json:"context,omitempty"`
}

// InvocationContext is the optional context of an invocation: who the
// governed operation runs for, its trace and its session. Its fields are
// the working group's (principal with claims, traceId, spanId, timestamp,
// sessionId); the text reserves interceptorState for later, and hookflow
// neither sends nor reads it.
type InvocationContext struct {
	Principal *Principal `json:"principal,omitempty"`
	// TraceID and SpanID place the invocation in a trace.
	TraceID string `json:"traceId,omitempty"`
	SpanID  string `json:"spanId,omitempty"`
	// Timestamp is the invoker's clock, RFC 3339 (informational only).
	Timestamp string `json:"timestamp"`
	// SessionID identifies the MCP session the governed operation belongs
	// to (hookflow sends the SHA-256 of the session ID: see
	// intercept.SessionRef).
	SessionID string `json:"sessionId,omitempty"`
}

// Principal is who the governed operation runs for.
type Principal struct {
	// Type is "user", "service" or "anonymous".
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
	// Claims are attributes of the principal. The intercept plugin sends
	// none (an interceptor gets no more than it needs); a caller of
	// intercept.Chain.Run sends what it sets.
	Claims map[string]any `json:"claims,omitempty"`
}

// The principal types.
const (
	PrincipalUser      = "user"
	PrincipalService   = "service"
	PrincipalAnonymous = "anonymous"
)

// Result is the result of interceptor/invoke: a ValidationResult when Type
// is validation (Valid set), a MutationResult when it is mutation
// (Modified and Payload set). One Go type holds both so that it can be the
// result of one JSON-RPC method; the pointers keep a false valid or
// modified on the wire.
type Result struct {
	mcp.ResultBase
	// Interceptor, Type and Phase echo the invocation: an invoker treats a
	// result that does not as malformed.
	Interceptor string `json:"interceptor"`
	Type        Type   `json:"type"`
	Phase       Phase  `json:"phase"`
	// DurationMs is how long the interceptor ran.
	DurationMs *float64 `json:"durationMs,omitempty"`
	// Info is interceptor-specific data.
	Info map[string]any `json:"info,omitempty"`

	// Valid is the validation's decision.
	Valid *bool `json:"valid,omitempty"`
	// Severity grades a validation; with Valid false, an omitted severity
	// blocks as an error would.
	Severity Severity `json:"severity,omitempty"`
	// Messages explain the decision.
	Messages []Message `json:"messages,omitempty"`
	// Suggestions are advisory corrections, never applied.
	Suggestions []Suggestion `json:"suggestions,omitempty"`

	// Modified says whether the mutation changed the payload.
	Modified *bool `json:"modified,omitempty"`
	// Payload is the replacement payload, or the unchanged input when
	// Modified is false.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Message is one finding of a validation.
type Message struct {
	// Path is the JSON path of the offending field, e.g.
	// "params.arguments.location".
	Path     string   `json:"path,omitempty"`
	Message  string   `json:"message"`
	Severity Severity `json:"severity"`
}

// Suggestion is an advisory correction of a validation: invokers never
// apply it.
type Suggestion struct {
	Path  string `json:"path"`
	Value any    `json:"value"`
}
