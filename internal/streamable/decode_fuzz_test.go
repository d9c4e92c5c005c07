package streamable_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/streamable"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeSeeds are messages a server meets, and near misses of them.
var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":"y"}}}`,
	`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no","data":[1]}}`,
	`{"jsonrpc":"2.0","id":null,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
	`{"jsonrpc":"2.0","id":true,"method":"x"}`,
	`{"jsonrpc":"2.0","method":""}`,
	`{"jsonrpc":"2.0","method":null}`,
	`{"jsonrpc":"2.0","method":1}`,
	`{"jsonrpc":"2.0","method":"a\u00e9\n"}`,
	`{"JSONRPC":"2.0","method":"x"}`,
	`{"jsonrpc":"1.0","method":"x"}`,
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"x"} trailing`,
	`  {"jsonrpc":"2.0","id":1,"method":"x"}  `,
	`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"` + strings.Repeat("[", 1001) + `"}`,
	``, `null`, `"x"`, `{`, `{"jsonrpc":"2.0","id":1,"method":"x"`,
}

// FuzzDecodeMessage checks that the transport's decoder accepts and refuses
// what the SDK's jsonrpc.DecodeMessage does, and builds the same message.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := jsonrpc.DecodeMessage(data)
		got, gotErr := streamable.DecodeMessage(append([]byte(nil), data...))
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: SDK error %v, ours %v", data, wantErr, gotErr)
		}
		if wantErr == nil && !sameMessage(got, want) {
			t.Fatalf("%q: SDK decoded %#v, ours %#v", data, want, got)
		}
	})
}

// sameMessage compares two messages field by field, an absent raw field
// equal to an empty one.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && string(a.Params) == string(b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		return ok && a.ID == b.ID && string(a.Result) == string(b.Result) && reflect.DeepEqual(a.Error, b.Error)
	}
	return false
}

func TestDecodeMessageSeeds(t *testing.T) {
	for _, s := range decodeSeeds {
		want, wantErr := jsonrpc.DecodeMessage([]byte(s))
		got, gotErr := streamable.DecodeMessage([]byte(s))
		if (wantErr == nil) != (gotErr == nil) || wantErr == nil && !sameMessage(got, want) {
			t.Errorf("%.60q: SDK %#v, %v; ours %#v, %v", s, want, wantErr, got, gotErr)
		}
	}
}
