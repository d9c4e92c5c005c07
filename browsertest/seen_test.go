package browsertest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// collectorJS runs in the page before its own script: a MutationObserver
// notes every row the runs list gets (a run by its data-seq, data-id and
// data-request; a marker by the count it starts with), in the order the
// list gets them, and every value of the list's data-live. The page
// deletes its oldest rows past 200; the notes keep them all. "loaded"
// separates the rows the page was drawn with (newest first) from the
// live ones (each added on top).
const collectorJS = `(() => {
	const seen = {items: [], states: []};
	window.__seen = seen;
	const take = (n) => {
		if (n.nodeName !== "TR" || !n.closest || !n.closest("table#runs")) { return; }
		if (n.classList.contains("dropped")) {
			seen.items.push({kind: "marker", n: parseInt(n.textContent, 10) || 0, text: n.textContent});
		} else if (n.classList.contains("run")) {
			seen.items.push({kind: "run", seq: Number(n.dataset.seq), id: n.dataset.id, request: n.dataset.request});
		}
	};
	new MutationObserver((recs) => {
		for (const r of recs) {
			if (r.type === "attributes") {
				if (r.target.id === "runs") { seen.states.push(r.target.dataset.live); }
				continue;
			}
			for (const n of r.addedNodes) { take(n); }
		}
	}).observe(document, {childList: true, subtree: true, attributes: true, attributeFilter: ["data-live"]});
	document.addEventListener("DOMContentLoaded", () => seen.items.push({kind: "loaded"}));
})()`

// drainJS hands over, and forgets, what the collector noted.
const drainJS = `(() => { const s = window.__seen; return {items: s.items.splice(0), states: s.states.splice(0)}; })()`

// item is a row the list got, or "loaded".
type item struct {
	Kind    string `json:"kind"`
	Seq     uint64 `json:"seq"`
	ID      string `json:"id"`
	Request string `json:"request"`
	N       int    `json:"n"`
	Text    string `json:"text"`
}

// seen is everything the list got, drained from the page.
type seen struct {
	initial []item // drawn with the page, oldest first
	live    []item // added after, oldest first
	loaded  bool
	states  []string
}

// collect makes every page ctx opens note its rows.
func collect(ctx context.Context) error {
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: collectorJS})
	return err
}

// drain adds to s what the page noted since the last drain.
func (s *seen) drain(ctx context.Context) error {
	got, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Items  []item   `json:"items"`
		States []string `json:"states"`
	}](drainJS))
	if err != nil {
		return err
	}
	s.states = append(s.states, got.States...)
	for _, it := range got.Items {
		switch {
		case it.Kind == "loaded":
			s.loaded = true
			slices.Reverse(s.initial)
		case s.loaded:
			s.live = append(s.live, it)
		default:
			s.initial = append(s.initial, it)
		}
	}
	return nil
}

// list returns every row the list got, oldest first.
func (s *seen) list() []item { return append(slices.Clip(s.initial), s.live...) }

// checkGaps returns an error for each place in the list where the runs'
// numbers do not follow and the markers between do not count exactly the
// runs missing, and the sum the markers count.
func (s *seen) checkGaps() (missed int, errs []error) {
	var prev *item
	between := 0
	for _, it := range s.list() {
		if it.Kind == "marker" {
			if it.N == 0 {
				errs = append(errs, fmt.Errorf("a marker counts nothing: %q", it.Text))
			}
			between += it.N
			missed += it.N
			continue
		}
		if prev != nil && it.Seq != prev.Seq+1+uint64(between) {
			errs = append(errs, fmt.Errorf("run %d follows run %d, and the markers between count %d", it.Seq, prev.Seq, between))
		}
		p := it
		prev, between = &p, 0
	}
	return missed, errs
}

// readAudit returns the request IDs of the audit file at path and its
// rotated backups, oldest first.
func readAudit(path string) ([]string, error) {
	var ids []string
	for i := 9; i >= 0; i-- {
		name := path
		if i > 0 {
			name += "." + strconv.Itoa(i)
		}
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev struct {
				RequestID string `json:"request_id"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			ids = append(ids, ev.RequestID)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return ids, nil
}
