package gateway

// The seam of related.go is unexported (it works around an SDK gap and is
// no API), so this test is inside the package.

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRelatedMarkAndTake: markRelated marks the params of a request to
// the client (an object, null or none) and refuses others, and
// takeRelated gives back the call's key and leaves the params as the
// upstream sent them.
func TestRelatedMarkAndTake(t *testing.T) {
	const key = "hookflow-gw-7"
	tests := []struct {
		name   string
		params string // "" for none
		marked bool
		into   func() mcp.Params
	}{
		{"sampling with other meta", `{"_meta":{"x":1},"maxTokens":5,"messages":[]}`, true, func() mcp.Params { return new(mcp.CreateMessageParams) }},
		{"elicitation without meta", `{"message":"hi"}`, true, func() mcp.Params { return new(mcp.ElicitParams) }},
		{"roots without params", ``, true, func() mcp.Params { return new(mcp.ListRootsParams) }},
		{"roots with null params", `null`, true, func() mcp.Params { return new(mcp.ListRootsParams) }},
		{"params not an object", `[1]`, false, nil},
		{"meta not an object", `{"_meta":"x"}`, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			if tt.params != "" {
				raw = json.RawMessage(tt.params)
			}
			marked, ok := markRelated(raw, key)
			if ok != tt.marked {
				t.Fatalf("markRelated: %v, want %v (params %s)", ok, tt.marked, marked)
			}
			if !ok {
				return
			}
			got, want := decodeParams(t, marked, tt.into()), decodeParams(t, raw, tt.into())
			if reflect.DeepEqual(got, want) {
				t.Fatalf("markRelated: params unchanged: %s", marked)
			}
			if k, ok := takeRelated(got); !ok || k != key {
				t.Fatalf("takeRelated: %q, %v; want %q, true", k, ok, key)
			}
			if got, want = normalMeta(got), normalMeta(want); !reflect.DeepEqual(got, want) {
				t.Errorf("after takeRelated:\n got %#v\nwant %#v", got, want)
			}
			if k, ok := takeRelated(got); ok {
				t.Errorf("takeRelated again: %q, want no key", k)
			}
		})
	}
}

// decodeParams decodes raw (none: nothing) into p.
func decodeParams(t *testing.T, raw json.RawMessage, p mcp.Params) mcp.Params {
	t.Helper()
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, p); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	return p
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
