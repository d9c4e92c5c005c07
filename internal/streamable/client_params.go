package streamable

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	segjson "github.com/segmentio/encoding/json"
)

// maxParamTools bounds the tools whose Mcp-Param-* headers a client
// connection keeps (those with x-mcp-header in their input schema), what
// a server's listings can make it hold; a tool past it is called without
// its headers, as a tool the client never listed is.
const maxParamTools = 4096

// noteParamTools keeps, from a tools/list result, the arguments each
// tool's input schema asks 2026-07-28 to repeat in Mcp-Param-* headers:
// the SDK's client finds them in its own cache of listed tools, under a
// context key of its own, where a transport cannot.
func (c *clientConn) noteParamTools(result []byte) {
	if !bytes.Contains(result, []byte(`"inputSchema"`)) {
		return
	}
	var res struct {
		Tools []struct {
			Name        string     `json:"name"`
			InputSchema schemaProp `json:"inputSchema"`
		} `json:"tools"`
	}
	if _, err := segjson.Parse(result, &res, parseFlags); err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range res.Tools {
		bs := bindings(t.InputSchema.Properties, nil, nil)
		switch {
		case len(bs) == 0:
			delete(c.paramTools, t.Name)
		case c.paramTools == nil:
			c.paramTools = map[string][]binding{t.Name: bs}
		case len(c.paramTools) < maxParamTools || c.paramTools[t.Name] != nil:
			c.paramTools[t.Name] = bs
		}
	}
}

// setParamHeaders sets the Mcp-Param-* headers of a call of tool name
// with args, as the SDK's client does: each annotated argument that is a
// string, a boolean or an integer within ±(2^53-1), Base64-encoded
// (=?base64?…?=) when it is not plain printable ASCII.
func (c *clientConn) setParamHeaders(h http.Header, name string, args json.RawMessage) {
	c.mu.Lock()
	bs := c.paramTools[name]
	c.mu.Unlock()
	if len(bs) == 0 {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return
	}
	for _, b := range bs {
		arg, ok := lookup(obj, b.path)
		if !ok {
			continue
		}
		if v, ok := headerValue(arg); ok {
			h.Set(paramHeaderPrefix+b.header, v)
		}
	}
}

// headerValue returns the Mcp-Param-* value of a JSON argument, false
// for one that has none (null, a fraction, an object...).
func headerValue(arg json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(arg, &v) != nil {
		return "", false
	}
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		const safe = 1<<53 - 1
		if v != math.Trunc(v) || math.Abs(v) > safe {
			return "", false
		}
		return strconv.FormatInt(int64(v), 10), true
	default:
		return "", false
	}
	if needsBase64(s) {
		return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=", true
	}
	return s, true
}

// needsBase64 reports whether a string argument must be sent encoded:
// leading or trailing blanks, a character outside printable ASCII, or
// the look of an encoded value.
func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")
}
