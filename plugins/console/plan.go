package console

import (
	"net/http"
	"strings"

	"github.com/hookflow/hookflow/flows"
)

// planStage is one stage of a plan as the plan page lists it.
type planStage struct {
	Name  string
	Hooks []planHook
}

// planHook is one line of a plan: its priority (a named position by its
// name), its ID, the owner the ID names and its timeout and failure
// policy.
type planHook struct {
	Priority, ID, Owner, Guard string
}

// parsePlan reads the text of Server.Explain (flows.Plan.Explain's
// format): a title line, then per stage a line indented by two spaces
// and per hook a line indented by four: priority, ID and, in
// parentheses, its guard.
func parsePlan(text string, flow flows.ID) (title string, st []planStage) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 {
		return "", nil
	}
	title = lines[0]
	for _, ln := range lines[1:] {
		switch {
		case strings.HasPrefix(ln, "    "):
			if len(st) == 0 {
				continue
			}
			f := strings.Fields(ln)
			if len(f) < 2 {
				continue
			}
			h := planHook{Priority: f[0], ID: f[1], Guard: strings.Join(f[2:], " ")}
			if i := strings.Index(h.ID, "/"+string(flow)+"/"); i > 0 {
				h.Owner = h.ID[:i]
			}
			st[len(st)-1].Hooks = append(st[len(st)-1].Hooks, h)
		case strings.HasPrefix(ln, "  "):
			name := strings.TrimSpace(ln)
			if name == "no hooks" {
				continue
			}
			st = append(st, planStage{Name: name})
		}
	}
	return title, st
}

func (p *Plugin) planPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	flow := flows.ID(q.Get("flow"))
	if flow == "" {
		flow = flows.ToolsCallTool
	}
	entity := capText(q.Get("entity"))
	var ids []string
	for _, f := range flows.All() {
		ids = append(ids, string(f.ID))
	}
	// The entities the console saw lately, to choose from.
	seen := map[string]bool{}
	for _, run := range p.ring.list(p.cfg.Runs, func(r *record) bool { return r.Flow == string(flow) && r.Entity != "" }) {
		if len(seen) < 200 {
			seen[run.Entity] = true
		}
	}
	data := struct {
		page
		Flows    []string
		Flow     string
		Entity   string
		Entities []string
		Error    string
		Heading  string
		Stages   []planStage
		Text     string
	}{page: page{"Plan", "plan"}, Flows: ids, Flow: string(flow), Entity: entity, Entities: sortedKeys(seen)}
	if flow.Index() < 0 {
		data.Error = "unknown flow " + capText(string(flow))
		p.render(w, "plan", data)
		return
	}
	info := flow.Info()
	switch {
	case info.Entity != flows.EntityNone && entity == "":
		data.Error = "Name an entity of " + string(flow) + " (a tool, prompt or resource) to see the plan its calls run."
	default:
		if info.Entity == flows.EntityNone {
			entity, data.Entity = "", ""
		}
		text, err := p.srv.Explain(flow, entity)
		if err != nil {
			data.Error = flows.Reason(err)
			break
		}
		data.Text = text
		data.Heading, data.Stages = parsePlan(text, flow)
		if len(data.Stages) == 0 {
			data.Error = "No hook runs on this plan."
		}
	}
	p.render(w, "plan", data)
}
