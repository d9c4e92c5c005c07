package console_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/console"
)

// runIDs returns the run IDs of the list's rows, newest first.
func runIDs(list string) []string {
	var ids []string
	for _, l := range runLinks(list) {
		ids = append(ids, strings.TrimPrefix(l, "/console/runs/"))
	}
	return ids
}

// streamFrom opens the live stream with set applied, and reads it until
// want events "run" came, returning the stream's text.
func streamFrom(t *testing.T, ts *httptest.Server, set func(*http.Request), want int) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/console/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	set(req)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := ts.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	var got strings.Builder
	for n := 0; ; {
		ln, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("%v after:\n%s", err, got.String())
		}
		got.WriteString(ln)
		if ln == "event: run\n" {
			n++
		}
		if n == want && ln == "\n" {
			break
		}
	}
	return got.String()
}

// A stream that names the run its viewer saw last, by Last-Event-ID or
// by "after", starts with the runs kept since, each with its ID; the runs
// the console no longer keeps are counted in a "missed" event, and a run
// of an earlier start is said so.
func TestResume(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{Runs: 3})
	// The first run is the first call's: its row, found by its request ID.
	req := h.Call(plugintest.ToolEcho, plugintest.Text{Text: "first"}).RequestID
	first := runOf(t, waitFor(t, ts, "/console/", `data-request="`+req+`"`), req)
	var last *plugintest.Result
	for range 4 {
		last = h.Call(plugintest.ToolEcho, plugintest.Text{Text: "next"})
	}
	if last.RequestID == "" {
		t.Fatal("the last call reached no run")
	}
	// The feed records a run after its call returned: wait for the last
	// call's run, so that no run is recorded after ids is read.
	var ids []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, list := get(t, ts, "/console/")
		ids = runIDs(list)
		if strings.Contains(list, `data-request="`+last.RequestID+`"`) && len(ids) >= 3 && ids[2] != first {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the list never showed three newer runs, the last %s's among them: %v", last.RequestID, ids)
		}
	}
	for _, tc := range []struct {
		name   string
		set    func(*http.Request)
		want   []string // the IDs sent, in order
		missed string
	}{
		{"Last-Event-ID of the second newest", func(r *http.Request) { r.Header.Set("Last-Event-ID", ids[1]) }, ids[:1], ""},
		{"after the oldest kept", func(r *http.Request) { r.URL.RawQuery = "after=" + ids[2] }, []string{ids[1], ids[0]}, ""},
		{"after a forgotten run", func(r *http.Request) { r.Header.Set("Last-Event-ID", first) }, []string{ids[2], ids[1], ids[0]}, "event: missed\ndata: 1\n"},
		{"the header wins", func(r *http.Request) {
			r.Header.Set("Last-Event-ID", ids[1])
			r.URL.RawQuery = "after=" + first
		}, ids[:1], ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := streamFrom(t, ts, tc.set, len(tc.want))
			at := 0
			for _, id := range tc.want {
				i := strings.Index(s[at:], "event: run\nid: "+id+"\n")
				if i < 0 {
					t.Fatalf("run %s not sent in order:\n%s", id, s)
				}
				at += i + 1
			}
			if tc.missed != "" && !strings.Contains(s, tc.missed) {
				t.Errorf("no %q:\n%s", tc.missed, s)
			}
			if tc.missed == "" && strings.Contains(s, "event: missed") {
				t.Errorf("a missed event:\n%s", s)
			}
		})
	}
}

// runOf returns the ID of the run of request req in list.
func runOf(t *testing.T, list, req string) string {
	t.Helper()
	i := strings.Index(list, `data-request="`+req+`"`)
	row := list[strings.LastIndex(list[:i], "<tr "):i]
	_, id, ok := strings.Cut(row, `data-id="`)
	if !ok {
		t.Fatalf("no data-id in the row of request %s: %s", req, row)
	}
	id, _, _ = strings.Cut(id, `"`)
	return id
}
