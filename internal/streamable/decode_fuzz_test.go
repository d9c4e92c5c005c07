package streamable_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/streamable"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
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
	`{"jsonrpc":"2.0","id":18446744073709551616,"method":"x"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`,
	`{"jsonrpc":"2.0","id":"\u0031","method":"x"}`,
	`{"jsonrpc":"2.\u0030","id":1,"method":"x"}`,
	`{"jsonrpc":2,"id":1,"method":"x"}`,
	`{"jsonrpc":null,"id":1,"method":"x"}`,
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
// what the SDK's jsonrpc.DecodeMessage does, and builds the same message,
// but for an ID the SDK's changes (1.5 into 1), which it refuses.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := sameDecode(data); err != "" {
			t.Fatal(err)
		}
	})
}

// sameDecode compares the SDK's decoding of data with ours, and returns
// how they differ ("" for not at all).
func sameDecode(data []byte) string {
	want, wantErr := jsonrpc.DecodeMessage(data)
	got, gotErr := streamable.DecodeMessage(append([]byte(nil), data...))
	if wantErr == nil && gotErr != nil && alteredID(data, want) {
		return ""
	}
	if (wantErr == nil) != (gotErr == nil) {
		return fmt.Sprintf("%.80q: SDK error %v, ours %v", data, wantErr, gotErr)
	}
	if wantErr == nil && !sameMessage(got, want) {
		return fmt.Sprintf("%.80q: SDK decoded %#v, ours %#v", data, want, got)
	}
	return ""
}

// alteredID reports whether the SDK decoded data, a message, with an
// integer ID other than the number the message carries.
func alteredID(data []byte, m jsonrpc.Message) bool {
	var id jsonrpc.ID
	switch m := m.(type) {
	case *jsonrpc.Request:
		id = m.ID
	case *jsonrpc.Response:
		id = m.ID
	}
	n, ok := id.Raw().(int64)
	if !ok {
		return false
	}
	var wire struct {
		ID json.RawMessage `json:"id"`
	}
	if _, err := segjson.Parse(data, &wire, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return false
	}
	return string(wire.ID) != strconv.FormatInt(n, 10)
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
		if err := sameDecode([]byte(s)); err != "" {
			t.Error(err)
		}
	}
}

// TestDecodeMessageIDs checks that an ID is a string or an integer the
// answer can carry as it came, and that anything else is refused, where
// the SDK's decoder makes any number an integer.
func TestDecodeMessageIDs(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want any // nil: refused
	}{
		{`1`, int64(1)},
		{`-1`, int64(-1)},
		{`0`, int64(0)},
		{`9007199254740992`, int64(1 << 53)},
		{`-9223372036854775808`, int64(math.MinInt64)},
		{`"a"`, "a"},
		{`"1.5"`, "1.5"},
		{`1.5`, nil},
		{`1.0`, nil},
		{`1e2`, nil},
		{`9007199254740993`, nil},
		{`9223372036854775807`, nil},
		{`18446744073709551616`, nil},
		{`-18446744073709551616`, nil},
		{`true`, nil},
		{`{}`, nil},
		{`[1]`, nil},
	} {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":` + tc.id + `,"result":{}}`,
		} {
			m, err := streamable.DecodeMessage([]byte(body))
			var got any
			switch m := m.(type) {
			case *jsonrpc.Request:
				got = m.ID.Raw()
			case *jsonrpc.Response:
				got = m.ID.Raw()
			}
			if tc.want == nil && err == nil || tc.want != nil && (err != nil || got != tc.want) {
				t.Errorf("%s: %#v, %v; want %#v", body, got, err, tc.want)
			}
		}
	}
}
