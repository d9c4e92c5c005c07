package gateway

// This file is the gateway's one way around a gap in go-sdk v1.8: over
// streamable HTTP, a client's handlers cannot tell which of its calls a
// server's request to the client is about.
//
// An HTTP upstream sends the requests a call gives rise to (sampling,
// elicitation, roots) on the event stream of that call's POST response.
// The SDK's client session dispatches such a request with a context of
// the session's and an mcp.ClientRequest without the call (no Extra,
// unlike ServerRequest); the SDK's own transport loses the stream even
// before then (its Connection.Read returns a bare jsonrpc.Message).
//
// hookflow's client transport (internal/streamable.ClientTransport) tells
// conn.Incoming each message with the context of the call whose response
// carried it, and Incoming marks such a request with the call's key in
// its _meta (markRelated); conn's relay (upstream.Relay) takes the mark
// out again (takeRelated) before the request goes on to the client. A
// ClientRequest that said which request's stream it came on would make
// the mark unnecessary.

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relatedMetaKey is the _meta key with which markRelated marks a
// request to the client with the key of the call it is about;
// takeRelated removes it before the request goes on to the client.
const relatedMetaKey = "hookflow.gateway/call"

// toClient reports whether method is one of the requests the gateway
// passes on to the client session (see upstream.Relay.Route).
func toClient(method string) bool {
	switch method {
	case "sampling/createMessage", "elicitation/create", "roots/list":
		return true
	}
	return false
}

// markRelated returns params, the params of a request to the client (a
// JSON object, null or absent), with key at _meta[relatedMetaKey], and
// whether it could.
func markRelated(params json.RawMessage, key string) (json.RawMessage, bool) {
	var fields, meta map[string]json.RawMessage
	if len(params) > 0 && json.Unmarshal(params, &fields) != nil {
		return nil, false
	}
	if fields == nil { // no params, or null
		fields = map[string]json.RawMessage{}
	}
	if m, ok := fields["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return nil, false
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	var err error
	if meta[relatedMetaKey], err = json.Marshal(key); err != nil {
		return nil, false
	}
	if fields["_meta"], err = json.Marshal(meta); err != nil {
		return nil, false
	}
	out, err := json.Marshal(fields)
	return out, err == nil
}

// takeRelated removes markRelated's mark from p, the params of a
// request to the client, and returns the key it carried, if any.
func takeRelated(p mcp.Params) (key string, ok bool) {
	meta := toClientMeta(p)
	if meta == nil {
		return "", false
	}
	if key, ok = meta[relatedMetaKey].(string); ok {
		delete(meta, relatedMetaKey)
	}
	return key, ok
}

// toClientMeta returns the _meta of the params of a request to the
// client, nil for none (the params themselves may be a nil pointer).
func toClientMeta(p mcp.Params) mcp.Meta {
	switch p := p.(type) {
	case *mcp.CreateMessageWithToolsParams:
		if p != nil {
			return p.Meta
		}
	case *mcp.CreateMessageParams:
		if p != nil {
			return p.Meta
		}
	case *mcp.ElicitParams:
		if p != nil {
			return p.Meta
		}
	case *mcp.ListRootsParams:
		if p != nil {
			return p.Meta
		}
	}
	return nil
}
