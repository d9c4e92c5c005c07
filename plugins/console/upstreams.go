package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/hookflow/hookflow/flows"
)

// maxHealthBytes caps the readiness report the console reads.
const maxHealthBytes = 1 << 20

// healthReport is the readiness endpoint's JSON report: an overall status and
// one object per upstream, whose fields the page shows as they come (the
// gateway's: name, state, since, error, reconnects, dropped, and any it
// adds).
type healthReport struct {
	Status    string           `json:"status"`
	Upstreams []map[string]any `json:"upstreams"`
}

// healthTable is what the upstreams page shows of a report: its status
// and a row per upstream under the columns.
type healthTable struct {
	Status  string
	Columns []string
	Rows    [][]string
}

func (p *Plugin) upstreamsPage(w http.ResponseWriter, r *http.Request) {
	data := struct {
		page
		healthTable
		Error string
		Hint  string
	}{page: page{Title: "Upstreams", Nav: "upstreams"}}
	if p.cfg.HealthURL == "" && p.cfg.Health == nil {
		data.Hint = "The console shows the upstreams of a gateway when its health_url names the gateway's readiness endpoint (serve.health, e.g. http://127.0.0.1:8080/health/ready)."
		p.render(w, "upstreams", data)
		return
	}
	if p.cfg.Health != nil {
		data.healthTable = reportTable(p.cfg.Health.HealthReport())
	} else {
		rep, err := p.readHealth(r.Context())
		if err != nil {
			data.Error = err.Error()
			p.render(w, "upstreams", data)
			return
		}
		data.healthTable = rep.table()
	}
	if len(data.Rows) == 0 {
		data.Hint = "The readiness endpoint reports no upstream."
	}
	p.render(w, "upstreams", data)
}

// reportTable is the table of a report read in process: the fields of
// flows.UpstreamHealth, in the columns the endpoint's report has.
func reportTable(rep flows.HealthReport) healthTable {
	t := healthTable{Status: capText(rep.Status), Columns: []string{"name", "state", "since", "error", "dropped", "reconnects"}}
	endpoints := slices.ContainsFunc(rep.Upstreams, func(u flows.UpstreamHealth) bool { return u.Endpoint != "" })
	if endpoints {
		t.Columns = append([]string{"endpoint"}, t.Columns...)
	}
	for _, u := range rep.Upstreams {
		row := []string{capText(u.Name), capText(u.State), u.Since.UTC().Format(time.RFC3339), capText(u.Error),
			strconv.FormatUint(u.Dropped, 10), strconv.Itoa(u.Reconnects)}
		if endpoints {
			row = append([]string{capText(u.Endpoint)}, row...)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// table is the table of a report read from the endpoint: the gateway's
// fields first, then any other an upstream's object has, by name.
func (rep *healthReport) table() healthTable {
	t := healthTable{Status: capText(rep.Status)}
	cols := []string{"name", "state", "since", "error"}
	for _, u := range rep.Upstreams {
		for k := range u {
			if !slices.Contains(cols, k) && len(cols) < 32 {
				cols = append(cols, k)
			}
		}
	}
	slices.Sort(cols[4:])
	t.Columns = cols
	for _, u := range rep.Upstreams {
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = cell(u[c])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// cell writes a JSON value for a table cell.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return capText(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return capText(string(b))
}

// readHealth reads the readiness report at Config.HealthURL, waiting at
// most 2 s. A 503 still carries a report.
func (p *Plugin) readHealth(ctx context.Context) (*healthReport, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.HealthURL, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the readiness endpoint: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the readiness endpoint did not answer: %v", err)
	}
	defer resp.Body.Close()
	var rep healthReport
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxHealthBytes)).Decode(&rep); err != nil {
		return nil, fmt.Errorf("the readiness endpoint answered %s, not a health report: %v", resp.Status, err)
	}
	return &rep, nil
}
