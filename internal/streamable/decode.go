package streamable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// maxDepth is the deepest nesting of objects and arrays a message may have,
// as the SDK's own decoder allows: far more than any MCP message needs,
// and a bound on what a hostile one costs to decode.
const maxDepth = 1000

// parseFlags decode as the SDK's decoder does (struct fields match their
// tags exactly), with params, results and error data left in the body
// rather than copied: the body is read once, and each message points into
// it.
const parseFlags = segjson.DontMatchCaseInsensitiveStructFields | segjson.DontCopyRawMessage

var errTooDeep = fmt.Errorf("json: exceeded maximum nesting depth of %d", maxDepth)

// wireMessage is one JSON-RPC message as it arrives: a request (method set)
// or a response.
type wireMessage struct {
	Version json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
}

// DecodeMessage decodes one JSON-RPC message, accepting and refusing what
// the SDK's jsonrpc.DecodeMessage does and building the same message
// (but for an ID the SDK's would change, which it refuses: see decodeID), in
// one pass over data and without a decoder's buffer: params and results
// are slices of data, which the caller must not change while the message
// is in use.
func DecodeMessage(data []byte) (jsonrpc.Message, error) {
	if err := checkDepth(data); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	return decodeOne(data)
}

// decodeOne is DecodeMessage without the depth check, for a message whose
// enclosing body was checked.
func decodeOne(data []byte) (jsonrpc.Message, error) {
	w := wires.Get().(*wireMessage)
	defer func() {
		*w = wireMessage{}
		wires.Put(w)
	}()
	// Like the SDK's stream decoder, the first JSON value is the message;
	// what follows it is not looked at.
	if _, err := segjson.Parse(data, w, parseFlags); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return nil, errors.New("unmarshaling jsonrpc message: empty input")
	}
	// The tag is compared in the body: a string of it would be one more
	// allocation per message.
	if string(w.Version) != `"2.0"` {
		if v, err := decodeString(w.Version); err != nil || v != "2.0" {
			return nil, fmt.Errorf("invalid message version tag %q; expected %q", v, "2.0")
		}
	}
	id, err := decodeID(w.ID)
	if err != nil {
		return nil, err
	}
	if len(w.Method) > 0 {
		method, err := decodeString(w.Method)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}, nil
	}
	if !id.IsValid() {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error
	}
	return resp, nil
}

// errBadID refuses an ID that is neither a string nor an integer the
// SDK's jsonrpc.ID holds as it is.
var errBadID = errors.New("the id must be a string or an integer (of at most 2^53 in magnitude, or one a float64 holds exactly)")

// decodeID decodes a message's ID, absent or null as none. Where the
// SDK's decoder makes any number an integer (1.5 becomes 1, 2^64 a
// negative number), it refuses a number that is not an integer literal,
// or that the SDK's ID, which holds an integer as a float64 on its way,
// would change: the answer must carry the ID the request did.
func decodeID(raw []byte) (jsonrpc.ID, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	switch c := raw[0]; {
	case c == '"':
		s, err := decodeString(raw)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return jsonrpc.MakeID(s)
	case c == '-' || c >= '0' && c <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		// 2^63 is past int64: a float64 of it does not convert back.
		if f := float64(n); err != nil || f >= 1<<63 || int64(f) != n {
			return jsonrpc.ID{}, errBadID
		}
		return jsonrpc.MakeID(float64(n))
	}
	return jsonrpc.ID{}, errBadID
}

// wires recycles the envelopes decodeOne decodes into: every field of one
// is copied out (raw fields point into the body, not into it) before it
// goes back.
var wires = sync.Pool{New: func() any { return new(wireMessage) }}

// decodeString decodes a JSON string (or null, as ""), without a decoder
// for the common string with no escapes.
func decodeString(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if _, err := segjson.Parse(raw, &s, parseFlags); err != nil {
		return "", err
	}
	return s, nil
}

// DecodeBody decodes a POST body: one message, or a batch (a JSON array
// of messages), as the SDK's transport reads them, appending them to buf.
// A batch must have at least one message.
func DecodeBody(data []byte, buf []jsonrpc.Message) (msgs []jsonrpc.Message, batch bool, err error) {
	if err := checkDepth(data); err != nil {
		return nil, false, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if b := bytes.TrimLeft(data, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		var raws []json.RawMessage
		if _, err := segjson.Parse(b, &raws, parseFlags); err == nil {
			if len(raws) == 0 {
				return nil, true, errors.New("empty batch")
			}
			msgs = slices.Grow(buf, len(raws))
			for _, raw := range raws {
				m, err := decodeOne(raw)
				if err != nil {
					return nil, true, err
				}
				msgs = append(msgs, m)
			}
			return msgs, true, nil
		}
	}
	m, err := decodeOne(data)
	if err != nil {
		return nil, false, err
	}
	return append(buf, m), false, nil
}

// checkDepth refuses data whose objects and arrays nest deeper than
// maxDepth, counting brackets outside strings in one pass over every byte.
func checkDepth(data []byte) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			// Skip the string: to its closing quote, past escapes.
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > maxDepth {
				return errTooDeep
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
