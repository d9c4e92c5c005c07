package streamable

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

const (
	methodHeader      = "Mcp-Method"
	nameHeader        = "Mcp-Name"
	paramHeaderPrefix = "Mcp-Param-"
)

// checkMeta checks a request's _meta protocol version against the
// Mcp-Protocol-Version header, as 2026-07-28 asks of every call (and of
// any request that carries one): a stateful server refuses that protocol
// (except server/discover, which learns which it serves), the header must
// be there, and the two must agree. It writes the refusal and returns
// false.
func (h *Handler) checkMeta(w http.ResponseWriter, req *jsonrpc.Request, version string) bool {
	meta := ""
	if bytes.Contains(req.Params, []byte(mcp.MetaKeyProtocolVersion)) {
		var params struct {
			Meta map[string]any `json:"_meta"`
		}
		if _, err := segjson.Parse(req.Params, &params, parseFlags); err == nil {
			meta, _ = params.Meta[mcp.MetaKeyProtocolVersion].(string)
		}
	}
	if !(req.IsCall() && version >= newProtocol) && meta == "" {
		return true
	}
	requested := version
	if requested == "" {
		requested = meta
	}
	switch {
	case !h.opts.Stateless && req.Method != "server/discover":
		legacy := slices.DeleteFunc(slices.Clone(h.opts.Versions), func(v string) bool { return v >= newProtocol })
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: legacy, Requested: requested})
		writeRPCError(w, http.StatusBadRequest, req.ID, mcp.CodeUnsupportedProtocolVersion,
			fmt.Sprintf("protocol version %q is not supported by this server", requested), data)
	case version == "":
		writeRPCError(w, http.StatusBadRequest, req.ID, mcp.CodeHeaderMismatch,
			fmt.Sprintf("%s header is required for requests carrying %q", protocolVersionHeader, mcp.MetaKeyProtocolVersion), nil)
	case meta == "":
		writeRPCError(w, http.StatusBadRequest, req.ID, jsonrpc.CodeInvalidParams,
			fmt.Sprintf("missing or invalid _meta field %q", mcp.MetaKeyProtocolVersion), nil)
	case meta != version:
		writeRPCError(w, http.StatusBadRequest, req.ID, mcp.CodeHeaderMismatch,
			fmt.Sprintf("%s header %q does not match request %s %q", protocolVersionHeader, version, mcp.MetaKeyProtocolVersion, meta), nil)
	default:
		return true
	}
	return false
}

// checkHeaders checks, on 2026-07-28, the headers that repeat a request's
// method, name and annotated tool arguments (Mcp-Method, Mcp-Name,
// Mcp-Param-*) against its body.
func (h *Handler) checkHeaders(header http.Header, msg jsonrpc.Message) error {
	if v := header.Get(protocolVersionHeader); v == "" || v < newProtocol {
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	method := header.Get(methodHeader)
	if method == "" {
		return errors.New("missing required Mcp-Method header")
	}
	if method != req.Method {
		return fmt.Errorf("header mismatch: Mcp-Method header value '%s' does not match body value '%s'", method, req.Method)
	}
	var params struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
	}
	switch req.Method {
	case "tools/call", "resources/read", "prompts/get":
	default:
		return nil
	}
	name := header.Get(nameHeader)
	if name == "" {
		return fmt.Errorf("missing required Mcp-Name header for method %q", req.Method)
	}
	if _, err := segjson.Parse(req.Params, &params, parseFlags); err != nil {
		return fmt.Errorf("failed to extract name from parameters for method %q", req.Method)
	}
	body := params.Name
	if req.Method == "resources/read" {
		body = params.URI
	}
	if name != body {
		return fmt.Errorf("header mismatch: Mcp-Name header value '%s' does not match body value '%s'", name, body)
	}
	if req.Method != "tools/call" {
		return nil
	}
	return h.opts.Host.ParamHeaders(body).check(header, params.Arguments)
}

// schemaProp is what the Mcp-Param-* checks need of a JSON Schema.
type schemaProp struct {
	Header     json.RawMessage       `json:"x-mcp-header"`
	Properties map[string]schemaProp `json:"properties"`
}

// binding is an argument (by its path of property names) that a header
// repeats.
type binding struct {
	path   []string
	header string
}

func bindings(props map[string]schemaProp, prefix []string, out []binding) []binding {
	for name, p := range props {
		path := append(slices.Clip(prefix), name)
		var header string
		if json.Unmarshal(p.Header, &header) == nil && header != "" {
			out = append(out, binding{path: path, header: header})
		}
		out = bindings(p.Properties, path, out)
	}
	return out
}

// ParamHeaders holds the arguments a tool's input schema marks with
// x-mcp-header: the Mcp-Param-* headers a 2026-07-28 call of the tool must
// carry. A nil *ParamHeaders checks nothing.
type ParamHeaders struct {
	bindings []binding
}

// CompileParamHeaders returns the header checks of a tool's input schema
// (any value that marshals to a JSON Schema), or nil when it marks no
// argument (or does not marshal).
func CompileParamHeaders(schema any) *ParamHeaders {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var root schemaProp
	if json.Unmarshal(raw, &root) != nil {
		return nil
	}
	bs := bindings(root.Properties, nil, nil)
	if len(bs) == 0 {
		return nil
	}
	// Map order is random: a call missing two headers names the same one
	// each time.
	slices.SortFunc(bs, func(a, b binding) int { return slices.Compare(a.path, b.path) })
	return &ParamHeaders{bindings: bs}
}

// check checks each marked argument of rawArgs against its
// Mcp-Param-<name> header: present exactly when the argument is (and not
// null), and equal to it.
func (ph *ParamHeaders) check(header http.Header, rawArgs json.RawMessage) error {
	if ph == nil {
		return nil
	}
	bs := ph.bindings
	// Arguments that are not an object have no annotated values: the
	// tool's validation refuses them.
	var args map[string]json.RawMessage
	_ = json.Unmarshal(rawArgs, &args)
	for _, b := range bs {
		full := paramHeaderPrefix + b.header
		value := header.Get(full)
		arg, found := lookup(args, b.path)
		where := strings.Join(b.path, ".")
		if !found || string(arg) == "null" {
			if value != "" {
				return fmt.Errorf("header mismatch: unexpected %s header for absent or null parameter %q", full, where)
			}
			continue
		}
		if value == "" {
			return fmt.Errorf("header mismatch: missing %s header for parameter %q", full, where)
		}
		decoded, ok := decodeHeaderValue(value)
		if !ok {
			return fmt.Errorf("header mismatch: %s header contains invalid Base64 encoding", full)
		}
		same, primitive := headerEquals(decoded, arg)
		if !primitive {
			return fmt.Errorf("header mismatch: %s header present but body parameter %q is not a primitive type", full, where)
		}
		if !same {
			return fmt.Errorf("header mismatch: %s header value '%s' does not match body value", full, value)
		}
	}
	return nil
}

func lookup(args map[string]json.RawMessage, path []string) (json.RawMessage, bool) {
	cur, ok := args[path[0]]
	for _, part := range path[1:] {
		if !ok {
			return nil, false
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		cur, ok = obj[part]
	}
	return cur, ok
}

// headerEquals compares a decoded header value with a JSON argument: a
// string as is, a boolean as "true"/"false", an integer (within ±2^53-1)
// by its value. primitive is false for any other argument.
func headerEquals(value string, arg json.RawMessage) (same, primitive bool) {
	var v any
	if json.Unmarshal(arg, &v) != nil {
		return false, false
	}
	switch v := v.(type) {
	case string:
		return value == v, true
	case bool:
		return value == strconv.FormatBool(v), true
	case float64:
		const safe = 1<<53 - 1
		if v != math.Trunc(v) || math.Abs(v) > safe {
			return false, false
		}
		h, err := strconv.ParseFloat(value, 64)
		if err != nil || h != math.Trunc(h) || math.Abs(h) > safe {
			return false, true
		}
		return int64(h) == int64(v), true
	}
	return false, false
}

// decodeHeaderValue decodes a header value sent as =?base64?…?=, and
// returns any other as it is.
func decodeHeaderValue(v string) (string, bool) {
	enc, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	enc, ok = strings.CutSuffix(enc, "?=")
	if !ok {
		return v, true
	}
	dec, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	return string(dec), true
}
