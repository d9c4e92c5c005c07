package difftest

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
)

// Row is one deliberate difference between hookflow's transport and the
// SDK's: for the input it describes, the SDK answers one of SDK and
// hookflow the Hookflow at the same index, each an [Outcome.Summary]; a
// side with one answer pairs it with each of the other's.
type Row struct {
	ID, Input     string
	SDK, Hookflow []string
	Why           string
	// SameMessages is whether the JSON-RPC messages of the two answers
	// must still be equal (the difference is in the framing only).
	SameMessages bool
}

// explains reports whether r accounts for the difference between the
// SDK's outcome a and hookflow's b.
func (r *Row) explains(a, b *Outcome) bool {
	sa, sb := a.Summary(), b.Summary()
	for i := range max(len(r.SDK), len(r.Hookflow)) {
		if r.SDK[min(i, len(r.SDK)-1)] == sa && r.Hookflow[min(i, len(r.Hookflow)-1)] == sb {
			return !r.SameMessages || slices.Equal(a.Messages, b.Messages)
		}
	}
	return false
}

// Rows is the table of deliberate differences.
type Rows []Row

// Explains reports whether a row of rs accounts for the difference
// between the SDK's outcome a and hookflow's b.
func (rs Rows) Explains(a, b *Outcome) bool {
	for i := range rs {
		if rs[i].explains(a, b) {
			return true
		}
	}
	return false
}

func (rs Rows) find(id string) *Row {
	for i := range rs {
		if rs[i].ID == id {
			return &rs[i]
		}
	}
	return nil
}

// LoadRows reads the table of deliberate differences from the Markdown
// file at path: the table that follows the heading heading, one row a
// line, its cells the row's id, input, the SDK's answers, hookflow's and
// why. An answer cell holds its summaries in backquotes; "same messages"
// in hookflow's cell sets SameMessages.
func LoadRows(path, heading string) (Rows, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	in, header := false, 0
	var rows Rows
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !in {
			in = strings.TrimLeft(line, "# ") == heading && strings.HasPrefix(line, "#")
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 || strings.HasPrefix(line, "#") {
				break
			}
			continue
		}
		if header < 2 { // the header and its separator
			header++
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 5 {
			return nil, fmt.Errorf("%s:%d: a row has 5 cells (id, input, go-sdk, hookflow, why), got %d", path, n, len(cells))
		}
		id := strings.Trim(strings.TrimSpace(cells[0]), "`")
		r := Row{ID: id, Input: strings.TrimSpace(cells[1]), SDK: quoted(cells[2]), Hookflow: quoted(cells[3]),
			Why: strings.TrimSpace(cells[4]), SameMessages: strings.Contains(cells[3], "same messages")}
		if id == "" || rows.find(id) != nil || len(r.SDK) == 0 || len(r.Hookflow) == 0 ||
			len(r.SDK) > 1 && len(r.Hookflow) > 1 && len(r.SDK) != len(r.Hookflow) {
			return nil, fmt.Errorf("%s:%d: row %q needs an id of its own and, for go-sdk and hookflow, one answer or as many as the other", path, n, id)
		}
		rows = append(rows, r)
	}
	if !in || len(rows) == 0 {
		return nil, fmt.Errorf("%s: no table after the heading %q", path, heading)
	}
	return rows, sc.Err()
}

// quoted returns the backquoted spans of cell.
func quoted(cell string) []string {
	var out []string
	for {
		i := strings.IndexByte(cell, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(cell[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, cell[i+1:i+1+j])
		cell = cell[i+2+j:]
	}
}

// Target is what a corpus runs against.
type Target struct {
	// Handlers returns the SDK's handler and hookflow's, stateless or
	// not, each serving a fresh server of the kind named ("" the
	// default).
	Handlers func(t testing.TB, server string, stateless bool) (sdk, hookflow http.Handler)
	// Normalize, when set, edits each decoded message before it is
	// compared, to drop what changes from run to run.
	Normalize func(msg map[string]any)
	// Rows are the deliberate differences.
	Rows Rows
}

// Run runs each case as a subtest on each of its legs, and fails it when
// the two handlers' outcomes differ where none of the case's rows says
// they do, or when one of its rows shows on none of its steps.
func (tg *Target) Run(t *testing.T, cases []Case) {
	for i := range cases {
		c := &cases[i]
		t.Run(c.Name, func(t *testing.T) {
			used := map[string]bool{}
			for _, id := range c.Differs {
				if tg.Rows.find(id) == nil {
					t.Fatalf("row %q is not in the table of differences", id)
				}
			}
			for _, l := range []string{Stateful, Stateless} {
				if !c.runsOn(l) {
					continue
				}
				sdk, hf := tg.Handlers(t, c.Server, l == Stateless)
				a := runLeg(sdk, c, l == Stateless, tg.Normalize)
				b := runLeg(hf, c, l == Stateless, tg.Normalize)
				tg.compare(t, l, c, a, b, used)
			}
			for _, id := range c.Differs {
				if !used[id] {
					t.Errorf("row %q: the difference it lists did not show: remove the row (docs) and the case's mark if it is gone", id)
				}
			}
		})
	}
}

func (tg *Target) compare(t *testing.T, leg string, c *Case, a, b []*Outcome, used map[string]bool) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d answers from go-sdk, %d from hookflow", leg, len(a), len(b))
		return
	}
	for i := range a {
		if Same(a[i], b[i]) {
			continue
		}
		explained := false
		for _, id := range c.Differs {
			if tg.Rows.find(id).explains(a[i], b[i]) {
				used[id], explained = true, true
			}
		}
		if !explained {
			t.Errorf("%s: the answers differ and no row of the case explains it:\n\tgo-sdk   %v\n\thookflow %v", leg, a[i], b[i])
		}
	}
}

// Same reports whether a client sees the same in a and b: status, media
// type, Mcp-Session-Id set or not, WWW-Authenticate, Allow and messages.
func Same(a, b *Outcome) bool {
	return a.Status == b.Status && a.Type == b.Type && a.Session == b.Session &&
		a.WWWAuthenticate == b.WWWAuthenticate && a.Allow == b.Allow &&
		a.Late == b.Late && (a.Err == "") == (b.Err == "") && slices.Equal(a.Messages, b.Messages)
}

// Agree reports whether a and b agree on what FuzzTransports checks: the
// status class, the media type and the JSON-RPC error codes.
func Agree(a, b *Outcome) bool {
	return a.Status/100 == b.Status/100 && a.Type == b.Type && slices.Equal(a.Codes, b.Codes)
}
