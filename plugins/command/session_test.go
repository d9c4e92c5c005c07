package command_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// Over streamable HTTP, session_id is the SHA-256 of the Mcp-Session-Id,
// never the ID itself (which is enough to send requests in the session),
// and the same for every hook of the session.
func TestSessionIDOverHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dump := f.script("dump.py", python3+`i = json.load(sys.stdin)
json.dump(i, open(i["hook_event_name"] + ".json", "w"))
`)
	s := f.serve(f.config(settings.Settings{
		"SessionStart": {{Hooks: []settings.Hook{{Command: dump}}}},
		"PreToolUse":   {{Hooks: []settings.Hook{{Command: dump}}}},
	}))
	h, err := s.Server().HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: plugintest.ToolEcho, Arguments: echoHi}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(cs.ID()))
	want := hex.EncodeToString(sum[:])
	for _, event := range []string{"SessionStart", "PreToolUse"} {
		data, err := os.ReadFile(f.path(event + ".json"))
		if err != nil {
			t.Fatalf("%s: the hook did not run: %v", event, err)
		}
		var in map[string]any
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatal(err)
		}
		if cs.ID() == "" || in["session_id"] != want {
			t.Errorf("%s: session_id %v, want %s, the hash of Mcp-Session-Id %q", event, in["session_id"], want, cs.ID())
		}
	}
}
