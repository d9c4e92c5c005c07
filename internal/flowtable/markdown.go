package flowtable

import (
	"fmt"
	"strings"
)

// Markers delimit the generated table in a markdown file.
const (
	BeginMarker = "<!-- flow table: generated from flows/table.go by `go generate ./flows`; do not edit -->"
	EndMarker   = "<!-- end of flow table -->"
)

// Markdown returns the flow table as docs/flows.md shows it, between
// [BeginMarker] and [EndMarker] lines.
func (t *Table) Markdown() string {
	var b strings.Builder
	b.WriteString(BeginMarker + "\n\n")
	b.WriteString("| flow ID | MCP method | entity resolved before the first stage | typed view | hooks can… |\n")
	b.WriteString("|---|---|---|---|---|\n")
	sent := false
	for i, r := range t.Rows {
		if r.Sent && !sent {
			sent = true
			b.WriteString("| **sent by the server** | | | | |\n")
		}
		method := "`" + r.Method + "`"
		if strings.HasSuffix(r.Method, "/*") {
			method += " (every one no other flow names)"
		}
		if r.Alias != "" {
			method += ", `" + r.Alias + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` | %s |\n", r.ID, method, entityPhrases[r.Entity], t.viewName(i), r.Doc)
	}
	b.WriteString("\n" + EndMarker + "\n")
	return b.String()
}

// viewName returns the Go type a hook of row i takes.
func (t *Table) viewName(i int) string {
	r := t.Rows[i]
	for _, v := range t.Views {
		if v.Const() != r.View {
			continue
		}
		switch len(v.Params) {
		case 0:
			return "flows." + v.Type
		case 1:
			return fmt.Sprintf("flows.%s[*mcp.%s]", v.Type, r.Result)
		}
		return fmt.Sprintf("flows.%s[%s]", v.Type, strings.Join(v.Params, ", "))
	}
	return "*flows.Context"
}

// Splice returns doc with the part from [BeginMarker] to [EndMarker]
// replaced by table, and whether doc has both markers.
func Splice(doc, table string) (string, bool) {
	begin := strings.Index(doc, BeginMarker)
	if begin < 0 {
		return doc, false
	}
	n := strings.Index(doc[begin:], EndMarker)
	if n < 0 {
		return doc, false
	}
	end := begin + n + len(EndMarker) + 1
	if end > len(doc) {
		end = len(doc)
	}
	return doc[:begin] + table + doc[end:], true
}
