package gateway

// The seam of related.go is unexported (it works around an SDK gap and is
// no API), so this test is inside the package.

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRelatedMarkAndTake: relatedMarker marks the requests to the client
// on a call's stream, and only those, and takeRelated gives back the
// call's key and leaves the params as the upstream sent them.
func TestRelatedMarkAndTake(t *testing.T) {
	const key = "hookflow-gw-7"
	tests := []struct {
		name   string
		marker relatedMarker
		data   string // after "data:"
		marked bool
		params func() mcp.Params
	}{
		{
			name:   "sampling with other meta",
			marker: relatedMarker{key: key},
			data:   ` {"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"_meta":{"x":1},"maxTokens":5,"messages":[]}}`,
			marked: true,
			params: func() mcp.Params { return new(mcp.CreateMessageParams) },
		},
		{
			name:   "elicitation without meta, CRLF line",
			marker: relatedMarker{key: key},
			data:   `{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"message":"hi"}}` + "\r",
			marked: true,
			params: func() mcp.Params { return new(mcp.ElicitParams) },
		},
		{
			name:   "roots without params",
			marker: relatedMarker{key: key},
			data:   `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,
			marked: true,
			params: func() mcp.Params { return new(mcp.ListRootsParams) },
		},
		{
			name:   "roots with null params",
			marker: relatedMarker{key: key},
			data:   `{"jsonrpc":"2.0","id":1,"method":"roots/list","params":null}`,
			marked: true,
			params: func() mcp.Params { return new(mcp.ListRootsParams) },
		},
		{
			name:   "stream of no call",
			marker: relatedMarker{},
			data:   `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,
		},
		{
			name:   "not a request to the client",
			marker: relatedMarker{key: key},
			data:   `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		},
		{
			name:   "no id",
			marker: relatedMarker{key: key},
			data:   `{"jsonrpc":"2.0","method":"roots/list"}`,
		},
		{
			name:   "params not an object",
			marker: relatedMarker{key: key},
			data:   `{"jsonrpc":"2.0","id":1,"method":"roots/list","params":[1]}`,
		},
		{
			name:   "meta not an object",
			marker: relatedMarker{key: key},
			data:   `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"_meta":"x"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if tt.marked && !tt.marker.candidate(data) {
				t.Fatal("candidate: false for a request to mark")
			}
			line, ok := tt.marker.mark(data, m.ID, m.Method)
			if ok != tt.marked {
				t.Fatalf("mark: %v, want %v (line %s)", ok, tt.marked, line)
			}
			if !ok {
				return
			}
			rest, found := bytes.CutPrefix(line, []byte("data: "))
			if !found {
				t.Fatalf("mark: line %q is no data line", line)
			}
			got, want := decodeRequest(t, rest, tt.params()), decodeRequest(t, bytes.TrimRight(data, "\r"), tt.params())
			if reflect.DeepEqual(got.params, want.params) {
				t.Fatalf("mark: params unchanged: %s", rest)
			}
			if k, ok := takeRelated(got.params); !ok || k != key {
				t.Fatalf("takeRelated: %q, %v; want %q, true", k, ok, key)
			}
			got.params, want.params = normalMeta(got.params), normalMeta(want.params)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after takeRelated:\n got %#v\nwant %#v", got, want)
			}
			if k, ok := takeRelated(got.params); ok {
				t.Errorf("takeRelated again: %q, want no key", k)
			}
		})
	}
}

// TestTakeRelatedUnmarked: params the upstream did not send on a call's
// stream carry no key, whatever else their _meta holds.
func TestTakeRelatedUnmarked(t *testing.T) {
	for _, p := range []mcp.Params{
		nil,
		(*mcp.ElicitParams)(nil),
		&mcp.ListRootsParams{},
		&mcp.CreateMessageParams{Meta: mcp.Meta{"x": 1}},
		&mcp.CreateMessageWithToolsParams{Meta: mcp.Meta{relatedMetaKey: 5}},
		&mcp.CallToolParams{Meta: mcp.Meta{relatedMetaKey: "k"}},
	} {
		if k, ok := takeRelated(p); ok {
			t.Errorf("takeRelated(%#v) = %q, want no key", p, k)
		}
	}
}

type decoded struct {
	fields map[string]json.RawMessage // all but params
	params mcp.Params
}

// decodeRequest decodes msg's params into p, and its other fields.
func decodeRequest(t *testing.T, msg []byte, p mcp.Params) decoded {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	if raw, ok := fields["params"]; ok {
		if err := json.Unmarshal(raw, p); err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		delete(fields, "params")
	}
	for k, v := range fields {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			t.Fatal(err)
		}
		fields[k], _ = json.Marshal(x) // compact
	}
	return decoded{fields: fields, params: p}
}

// normalMeta returns p with an empty _meta as none: marking adds a _meta
// to params that had none, and taking the key leaves it empty.
func normalMeta(p mcp.Params) mcp.Params {
	switch p := p.(type) {
	case *mcp.CreateMessageParams:
		if len(p.Meta) == 0 {
			p.Meta = nil
		}
	case *mcp.ElicitParams:
		if len(p.Meta) == 0 {
			p.Meta = nil
		}
	case *mcp.ListRootsParams:
		if len(p.Meta) == 0 {
			p.Meta = nil
		}
	}
	return p
}
