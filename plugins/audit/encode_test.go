package audit

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
)

// hostile are the pieces of the strings TestAppendJSONIsMarshal builds:
// everything encoding/json escapes, and what it does not.
var hostile = []string{"a", "é", "日本", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
	"<", ">", "&", "\u2028", "\u2029", "\xff", "\xe2\x80", "\U0001F600", " ", "/"}

func hostileString(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(6) {
		b.WriteString(hostile[rng.IntN(len(hostile))])
	}
	return b.String()
}

// TestAppendJSONIsMarshal wants the file sink's encoder to write the
// bytes json.Marshal writes for the same event, field for field, for
// events with every field empty or set and strings of every kind.
func TestAppendJSONIsMarshal(t *testing.T) {
	full := Event{
		Time: time.Date(2026, 12, 6, 3, 4, 5, 6007, time.FixedZone("x", 3600)), Flow: flows.ToolsCallTool,
		Entity: "greet", SessionID: "s", RequestID: "r", Principal: "ann", ClientID: "c", Outcome: Blocked,
		DecidedBy: "plugin:auth/scopes", Error: "no <scope> & \"more\"", Duration: 1234, URI: "file:///x",
		Args:       json.RawMessage("{ \"a\" : [1, 2.5e3, \"<b>\\u0041\u2028\"], \"b\": {\"c\": null, \"d\": true} }"),
		FailedOpen: []HookFailure{{Hook: "h", Code: "panic", Error: "e"}, {Hook: "", Code: "", Error: ""}},
		Decisions:  []flows.Decision{{By: "b", What: "w", Outcome: "allowed", Duration: 5, Reason: "r"}, {By: "", Outcome: ""}},
		Truncated:  []string{"args", "error"},
	}
	events := []Event{{}, {Time: time.Unix(0, 0).UTC()}, full}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		ev := full
		s := func() string { return hostileString(rng) }
		ev.Time = time.Unix(rng.Int64N(1<<34), rng.Int64N(1e9))
		ev.Flow, ev.Entity, ev.SessionID, ev.RequestID = flows.ID(s()), s(), s(), s()
		ev.Principal, ev.ClientID, ev.Outcome, ev.DecidedBy, ev.Error, ev.URI = s(), s(), Outcome(s()), s(), s(), s()
		ev.Duration = time.Duration(rng.Int64() - 1<<62)
		arg, _ := json.Marshal(map[string]string{s(): s()})
		ev.Args = json.RawMessage(strings.ReplaceAll(string(arg), ":", " : "))
		ev.FailedOpen = []HookFailure{{Hook: s(), Code: s(), Error: s()}}
		ev.Decisions = []flows.Decision{{By: s(), What: s(), Outcome: s(), Duration: time.Duration(rng.Int64()), Reason: s()}}
		ev.Truncated = []string{s(), s()}[:rng.IntN(3)]
		events = append(events, ev)
	}
	var scratch bytes.Buffer
	for i, ev := range events {
		want, err := json.Marshal(&ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.appendJSON(nil, &scratch)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("event %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestAppendJSONBadArgs wants arguments that are not JSON refused, as
// json.Marshal refuses them.
func TestAppendJSONBadArgs(t *testing.T) {
	ev := &Event{Args: json.RawMessage(`{"a":`)}
	if _, err := json.Marshal(ev); err == nil {
		t.Fatal("json.Marshal took bad args")
	}
	if _, err := ev.appendJSON(nil, new(bytes.Buffer)); err == nil {
		t.Error("appendJSON took bad args")
	}
}
