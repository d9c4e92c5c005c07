package gateway

// This file is the gateway's one way around a gap in go-sdk v1.8: over
// streamable HTTP, a client's handlers cannot tell which of its calls a
// server's request to the client is about.
//
// An HTTP upstream sends the requests a call gives rise to (sampling,
// elicitation, roots) on the event stream of that call's POST response.
// In go-sdk v1.8.0 the client side of mcp.StreamableClientTransport
// (streamableClientConn.processStream, which is given the call) puts the
// messages of every response stream and of the standalone GET stream on
// one queue, and its Connection.Read returns a bare jsonrpc.Message: the
// stream, and so the call, is lost before the ClientSession dispatches
// the request. The handlers get an mcp.ClientRequest (Session and Params,
// no Extra, unlike ServerRequest) and a context of the session's, not
// of the call.
//
// So countingBody, which reads the event streams below the SDK, marks
// such a request on a call's stream with the call's key (relatedMarker),
// and conn.about takes the mark out again (takeRelated) before the
// request goes on to the client. A transport or ClientRequest that says
// which request's stream a message came on (the related request ID the
// server side keeps) would make both, and this file, unnecessary.

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relatedMetaKey is the _meta key with which relatedMarker marks a
// request to the client with the key of the call it is about;
// takeRelated removes it before the request goes on to the client.
const relatedMetaKey = "hookflow.gateway/call"

// relatedMarker marks the requests to the client that an HTTP upstream
// sends on the response stream of one forwarded call with that call's
// key. The zero relatedMarker, of a stream of no call, marks nothing.
type relatedMarker struct {
	key string
}

// candidate reports whether data, the data of a server-sent event that
// is no notification, may be a request r marks: few are, as the
// upstream's results carry no method, so few lines get decoded.
func (r relatedMarker) candidate(data []byte) bool {
	return r.key != "" && bytes.Contains(data, []byte(`"method"`))
}

// mark returns the data line that carries data, the data of a
// server-sent event (a message with the given id and method), with r's
// key added at params._meta[relatedMetaKey], and whether it marked it:
// only a request to the client whose params are a JSON object (or
// absent, or null) is marked. Its caller decodes id and method, so that
// a line is decoded once for counting and marking.
func (r relatedMarker) mark(data []byte, id json.RawMessage, method string) ([]byte, bool) {
	if r.key == "" || id == nil || !toClient(method) {
		return nil, false
	}
	marked, ok := markRelated(bytes.TrimRight(data, "\r"), r.key)
	if !ok {
		return nil, false
	}
	return append([]byte("data: "), marked...), true
}

// toClient reports whether method is one of the requests the gateway
// passes on to the client session (see conn.route).
func toClient(method string) bool {
	switch method {
	case "sampling/createMessage", "elicitation/create", "roots/list":
		return true
	}
	return false
}

// markRelated returns the JSON-RPC request msg with key at
// params._meta[relatedMetaKey], and whether it could: msg and its params
// must be JSON objects.
func markRelated(msg []byte, key string) ([]byte, bool) {
	var fields, params, meta map[string]json.RawMessage
	if json.Unmarshal(msg, &fields) != nil || fields == nil {
		return nil, false
	}
	if p, ok := fields["params"]; ok && json.Unmarshal(p, &params) != nil {
		return nil, false
	}
	if params == nil { // no params, or null
		params = map[string]json.RawMessage{}
	}
	if m, ok := params["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return nil, false
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	var err error
	if meta[relatedMetaKey], err = json.Marshal(key); err != nil {
		return nil, false
	}
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, false
	}
	if fields["params"], err = json.Marshal(params); err != nil {
		return nil, false
	}
	out, err := json.Marshal(fields)
	return out, err == nil
}

// takeRelated removes relatedMarker's mark from p, the params of a
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
