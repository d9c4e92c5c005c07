package console

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hookflow/hookflow/flows"
)

//go:embed templates/console.html
var templateFS embed.FS

// pageRuns is how many runs the runs page and a live list show.
const pageRuns = 200

// parseTemplates parses the console's pages for p's path.
func (p *Plugin) parseTemplates() *template.Template {
	funcs := template.FuncMap{
		"base":        func() string { return p.cfg.Path },
		"version":     func() string { return Version },
		"maxSteps":    func() int { return maxSteps },
		"clock":       func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
		"stamp":       func(t time.Time, d time.Duration) string { return t.Add(d).UTC().Format(time.RFC3339Nano) },
		"dur":         fmtDur,
		"outcomeText": outcomeText,
		"stepClass":   func(s string) string { return strings.ReplaceAll(s, " ", "-") },
		"bar":         bar,
		"spark":       spark,
		"traceURL": func(id string) template.URL {
			return template.URL(strings.ReplaceAll(p.cfg.TraceURL, "{trace_id}", url.PathEscape(id)))
		},
	}
	return template.Must(template.New("console").Funcs(funcs).ParseFS(templateFS, "templates/console.html"))
}

// outcomeText is how a page words a run's outcome.
func outcomeText(o string) string {
	switch o {
	case outcomeAnswered:
		return "answered early"
	case outcomeFailed:
		return "failed"
	}
	return o
}

// fmtDur writes d with three significant digits, e.g. 1.25ms.
func fmtDur(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/1e3, 'g', 3, 64) + "µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/1e6, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'g', 3, 64) + "s"
}

func urlEscape(s string) string { return url.QueryEscape(s) }

// page is what every page's frame needs.
type page struct {
	Title string
	Nav   string
}

func (p *Plugin) render(w http.ResponseWriter, name string, data any) {
	p.renderStatus(w, http.StatusOK, name, data)
}

// renderStatus draws the page name with data, answering code.
func (p *Plugin) renderStatus(w http.ResponseWriter, code int, name string, data any) {
	var b bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		p.srv.Logger().Error("console: rendering", "page", name, "err", err)
		http.Error(w, "the console could not draw this page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

var allOutcomes = []string{outcomeOK, outcomeBlocked, outcomeFailed, outcomeAnswered, outcomeRecovered}

func (p *Plugin) runsPage(w http.ResponseWriter, r *http.Request) {
	f := filterOf(r)
	// The newest run's ID before the list: the page's stream starts after
	// it, so a run that ends meanwhile is sent (the script skips a run the
	// list already shows) rather than lost.
	after := p.ring.lastID()
	runs := p.ring.list(pageRuns, f.keep)
	all := p.ring.list(p.cfg.Runs, func(*record) bool { return true })
	tools := map[string]bool{}
	for _, run := range all {
		if run.Entity != "" && len(tools) < 200 {
			tools[run.Entity] = true
		}
	}
	var flowIDs []string
	for _, fl := range flows.All() {
		flowIDs = append(flowIDs, string(fl.ID))
	}
	p.render(w, "runs", struct {
		page
		Filter   filter
		Query    string
		Runs     []*record
		Kept     int
		Cap      int
		Max      int
		Dropped  uint64
		Outcomes []string
		Tools    []string
		Flows    []string
		After    string
	}{page{"Runs", "runs"}, f, f.query(), runs, len(all), p.cfg.Runs, pageRuns, p.Dropped(), allOutcomes, sortedKeys(tools), flowIDs, after})
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (p *Plugin) runPage(w http.ResponseWriter, r *http.Request) {
	run, earlier := p.ring.byID(r.PathValue("id"))
	if earlier {
		p.problem(w, http.StatusNotFound, "No such run", "This run is of an earlier start of the server: the console keeps the runs of its current start only.")
		return
	}
	if run == nil {
		p.problem(w, http.StatusNotFound, "No such run", "No such run: the console keeps the newest "+strconv.Itoa(p.cfg.Runs)+" runs.")
		return
	}
	title := "Run of " + run.Flow
	if run.Entity != "" {
		title += " " + run.Entity
	}
	p.render(w, "run", struct {
		page
		Run *record
	}{page{title, "runs"}, run})
}
