package console

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// seqs returns the numbers of runs.
func seqs(runs []*record) []uint64 {
	var out []uint64
	for _, r := range runs {
		out = append(out, r.Seq)
	}
	return out
}

// A viewer that names the run it saw last gets the runs kept since, then
// the live ones, none twice; what the ring forgot, or what is past
// replayMax, is counted; a run of an earlier start is "not known".
func TestReplay(t *testing.T) {
	tests := []struct {
		name       string
		ring, runs int
		after      func(ids []string) string
		want       []uint64 // replayed, then run runs+1 live
		missed     int
	}{
		{"none", 5, 3, func([]string) string { return "" }, []uint64{4}, 0},
		{"all kept", 5, 3, func(ids []string) string { return ids[0] }, []uint64{2, 3, 4}, 0},
		{"the newest", 5, 3, func(ids []string) string { return ids[2] }, []uint64{4}, 0},
		{"forgotten", 3, 6, func(ids []string) string { return ids[0] }, []uint64{4, 5, 6, 7}, 2},
		{"past replayMax", 1000, replayMax + 50, func(ids []string) string { return ids[0] }, nil, 49},
		{"an earlier start", 5, 3, func([]string) string { return newStamp().runID(time.Now(), 2) }, []uint64{4}, -1},
		{"not an ID", 5, 3, func([]string) string { return "1" }, []uint64{4}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newRing(tc.ring)
			var ids []string
			for range tc.runs {
				r := &record{}
				g.add(r)
				ids = append(ids, r.ID)
			}
			v := newViewer()
			ok, missed := g.subscribe(v, 1, tc.after(ids))
			if !ok {
				t.Fatal("refused")
			}
			g.add(&record{})
			q, dropped := v.take()
			if missed != tc.missed || dropped != 0 {
				t.Errorf("missed %d, dropped %d; want %d, 0", missed, dropped, tc.missed)
			}
			got := seqs(q)
			if tc.want == nil { // the newest replayMax, then the live run
				if len(got) != replayMax+1 || got[0] != uint64(tc.runs-replayMax+1) || got[len(got)-1] != uint64(tc.runs+1) {
					t.Errorf("got %d runs %d…%d", len(got), got[0], got[len(got)-1])
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// Run IDs sort as their runs ended, name their run for good, and tell a
// run of an earlier start from one that never was.
func TestRunIDs(t *testing.T) {
	g := newRing(3)
	for range 5 {
		g.add(&record{})
	}
	var ids []string
	for s := uint64(3); s <= 5; s++ {
		ids = append(ids, g.get(s).ID)
	}
	if !slices.IsSorted(ids) || len(ids[0]) != 26 {
		t.Errorf("IDs %v are not sorted ULIDs", ids)
	}
	if r, earlier := g.byID(ids[1]); r == nil || r.Seq != 4 || earlier {
		t.Errorf("byID(%s) = %v, %v", ids[1], r, earlier)
	}
	old := newRing(3)
	old.add(&record{})
	for _, tc := range []struct {
		id      string
		earlier bool
	}{{old.get(1).ID, true}, {"1", false}, {strings.Repeat("Z", 26), false}, {"", false}} {
		if r, earlier := g.byID(tc.id); r != nil || earlier != tc.earlier {
			t.Errorf("byID(%q) = %v, %v; want nil, %v", tc.id, r, earlier, tc.earlier)
		}
	}
}
