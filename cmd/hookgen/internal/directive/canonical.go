package directive

import (
	"strconv"
	"strings"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
)

// Canonical renders the tool as a //mcp:tool line.
func (t Tool) Canonical() string {
	var c canon
	c.head(NamespaceMCP, "tool")
	c.str("name", t.Name, true)
	c.str("title", t.Title, false)
	c.str("description", t.Description, false)
	c.flag("readonly", t.ReadOnly)
	c.flag("destructive", t.Destructive)
	c.flag("idempotent", t.Idempotent)
	c.flag("openworld", t.OpenWorld)
	if len(t.Scopes) > 0 {
		c.bare("scopes", strings.Join(t.Scopes, ","))
	}
	if t.InputSchema != "" {
		c.bare("inputschema", t.InputSchema)
	}
	if t.OutputSchema != "" {
		c.bare("outputschema", t.OutputSchema)
	}
	return c.String()
}

// Canonical renders the resource as a //mcp:resource line.
func (r Resource) Canonical() string {
	var c canon
	c.head(NamespaceMCP, "resource")
	c.str("uri", r.URI, true)
	c.str("name", r.Name, false)
	c.str("title", r.Title, false)
	c.str("description", r.Description, false)
	c.str("mime", r.MIMEType, false)
	return c.String()
}

// Canonical renders the template as a //mcp:resource-template line.
func (r ResourceTemplate) Canonical() string {
	var c canon
	c.head(NamespaceMCP, "resource-template")
	c.str("uri", r.URITemplate, true)
	c.str("name", r.Name, false)
	c.str("title", r.Title, false)
	c.str("description", r.Description, false)
	c.str("mime", r.MIMEType, false)
	return c.String()
}

// Canonical renders the prompt as a //mcp:prompt line.
func (p Prompt) Canonical() string {
	var c canon
	c.head(NamespaceMCP, "prompt")
	c.str("name", p.Name, true)
	c.str("title", p.Title, false)
	c.str("description", p.Description, false)
	if len(p.Args) > 0 {
		args := make([]string, len(p.Args))
		for i, a := range p.Args {
			args[i] = a.Name
			if !a.Required {
				args[i] += "?"
			}
		}
		c.bare("args", strings.Join(args, ","))
	}
	return c.String()
}

// Canonical renders the argument as an //mcp:arg line.
func (a PromptArg) Canonical() string {
	var c canon
	c.head(NamespaceMCP, "arg")
	c.str("name", a.Name, true)
	c.str("title", a.Title, false)
	c.str("description", a.Description, false)
	c.flag("optional", !a.Required)
	return c.String()
}

// Canonical renders the plugin as a //mcp:plugin line.
func (p Plugin) Canonical() string {
	var c canon
	c.head(NamespaceMCP, "plugin")
	c.bare("name", p.Name)
	return c.String()
}

// Canonical renders the hook as a //hook:<stage> line.
func (h HookDirective) Canonical() string {
	var c canon
	c.head(NamespaceHook, h.Stage.String())
	if h.HasFlow || h.Flow != "" {
		c.bare("flow", string(h.Flow))
	}
	if h.Priority != 0 {
		c.bare("priority", priority.Format(h.Priority))
	}
	if h.Name != "" {
		c.bare("name", h.Name)
	}
	if h.Timeout != 0 {
		c.bare("timeout", h.Timeout.String())
	}
	if h.OnFailure != flows.FailClosed {
		c.bare("onfail", h.OnFailure.String())
	}
	return c.String()
}

// canon builds a canonical directive line.
type canon struct{ strings.Builder }

func (c *canon) head(ns, name string) { c.WriteString("//" + ns + ":" + name) }

func (c *canon) bare(key, v string) { c.WriteString(" " + key + "=" + v) }

func (c *canon) flag(key string, on bool) {
	if on {
		c.WriteString(" " + key)
	}
}

// str writes a string value, bare when that reads back the same, quoted
// otherwise; an empty optional value is left out.
func (c *canon) str(key, v string, required bool) {
	if v == "" && !required {
		return
	}
	if !isPlainWord(v) {
		v = strconv.Quote(v)
	}
	c.bare(key, v)
}

// isPlainWord reports whether s can be written as a bare value: non-empty
// printable ASCII without spaces, quotes or backslashes.
func isPlainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '`' || c == '\\' {
			return false
		}
	}
	return s != ""
}
