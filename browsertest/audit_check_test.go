package browsertest_test

import (
	"fmt"
	"slices"
)

// checkAudit checks the list against the audit file's request IDs, in
// the order the audit plugin wrote them: every run listed is in the file,
// and listed once; every run of the file after the middle run the page
// was drawn with is listed or counted by a marker, as many as the
// markers count (missed) in all. The runs before the middle one are older
// than the page. The middle, not the oldest, is the line because the
// audit file and the console order runs that end together each its own
// way; the order's largest displacement, measured on the listed runs,
// must stay under half the page's rows for the line to be sound.
func checkAudit(s *seen, audit []string, missed int) (report string, errs []error) {
	at := make(map[string]int, len(audit))
	for i, id := range audit {
		if _, dup := at[id]; dup {
			errs = append(errs, fmt.Errorf("the audit file has request %s twice", id))
		}
		at[id] = i
	}
	var runs, initial []item
	listed := map[string]bool{}
	for _, it := range s.list() {
		if it.Kind != "run" {
			continue
		}
		if listed[it.Request] {
			errs = append(errs, fmt.Errorf("run %d (request %s) is listed twice", it.Seq, it.Request))
		}
		listed[it.Request] = true
		if _, ok := at[it.Request]; !ok {
			errs = append(errs, fmt.Errorf("run %d (request %q) is listed but not in the audit file", it.Seq, it.Request))
			continue
		}
		runs = append(runs, it)
	}
	for _, it := range s.initial {
		if it.Kind == "run" {
			initial = append(initial, it)
		}
	}
	if len(initial) < 20 {
		return "", append(errs, fmt.Errorf("the page was drawn with %d runs, too few to draw the line", len(initial)))
	}
	line := at[initial[len(initial)/2].Request]
	var unlisted []string
	for _, id := range audit[line+1:] {
		if !listed[id] {
			unlisted = append(unlisted, id)
		}
	}
	if len(unlisted) != missed {
		errs = append(errs, fmt.Errorf("%d runs of the audit file after the page's middle run are not listed, and the markers count %d (first unlisted: %q)", len(unlisted), missed, unlisted[:min(len(unlisted), 5)]))
	}
	disp := displacement(runs, at)
	if disp >= len(initial)/2 {
		errs = append(errs, fmt.Errorf("the audit file and the console order runs %d places apart: the line at the page's middle run is not sound", disp))
	}
	return fmt.Sprintf("audit file: %d runs, %d after the page's middle run; listed %d; not listed %d, markers count %d; largest order displacement %d",
		len(audit), len(audit)-line-1, len(runs), len(unlisted), missed, disp), errs
}

// displacement returns by how many places at most a run's rank among
// runs by number differs from its rank by its audit line.
func displacement(runs []item, at map[string]int) int {
	bySeq := slices.Clone(runs)
	slices.SortFunc(bySeq, func(a, b item) int { return int(a.Seq) - int(b.Seq) })
	rank := make(map[string]int, len(bySeq))
	for i, r := range bySeq {
		rank[r.Request] = i
	}
	byAudit := slices.Clone(runs)
	slices.SortFunc(byAudit, func(a, b item) int { return at[a.Request] - at[b.Request] })
	d := 0
	for i, r := range byAudit {
		d = max(d, i-rank[r.Request], rank[r.Request]-i)
	}
	return d
}
