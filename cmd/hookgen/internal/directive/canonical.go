package directive

import (
	"strconv"
	"strings"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/priority"
)

// Canonical renders the tool as a //mcp:tool line.
func (t Tool) Canonical() string {
	var c Canon
	c.Head(NamespaceMCP, "tool")
	c.Str("name", t.Name, true)
	c.Str("title", t.Title, false)
	c.Str("description", t.Description, false)
	c.Flag("readonly", t.ReadOnly)
	c.Flag("destructive", t.Destructive)
	c.Flag("idempotent", t.Idempotent)
	c.Flag("openworld", t.OpenWorld)
	if len(t.Scopes) > 0 {
		c.Bare("scopes", strings.Join(t.Scopes, ","))
	}
	if t.InputSchema != "" {
		c.Bare("inputschema", t.InputSchema)
	}
	if t.OutputSchema != "" {
		c.Bare("outputschema", t.OutputSchema)
	}
	return c.String()
}

// Canonical renders the resource as a //mcp:resource line.
func (r Resource) Canonical() string {
	var c Canon
	c.Head(NamespaceMCP, "resource")
	c.Str("uri", r.URI, true)
	c.Str("name", r.Name, false)
	c.Str("title", r.Title, false)
	c.Str("description", r.Description, false)
	c.Str("mime", r.MIMEType, false)
	return c.String()
}

// Canonical renders the template as a //mcp:resource-template line.
func (r ResourceTemplate) Canonical() string {
	var c Canon
	c.Head(NamespaceMCP, "resource-template")
	c.Str("uri", r.URITemplate, true)
	c.Str("name", r.Name, false)
	c.Str("title", r.Title, false)
	c.Str("description", r.Description, false)
	c.Str("mime", r.MIMEType, false)
	return c.String()
}

// Canonical renders the prompt as a //mcp:prompt line.
func (p Prompt) Canonical() string {
	var c Canon
	c.Head(NamespaceMCP, "prompt")
	c.Str("name", p.Name, true)
	c.Str("title", p.Title, false)
	c.Str("description", p.Description, false)
	if len(p.Args) > 0 {
		args := make([]string, len(p.Args))
		for i, a := range p.Args {
			args[i] = a.Name
			if !a.Required {
				args[i] += "?"
			}
		}
		c.Bare("args", strings.Join(args, ","))
	}
	return c.String()
}

// Canonical renders the argument as an //mcp:arg line.
func (a PromptArg) Canonical() string {
	var c Canon
	c.Head(NamespaceMCP, "arg")
	c.Str("name", a.Name, true)
	c.Str("title", a.Title, false)
	c.Str("description", a.Description, false)
	c.Flag("optional", !a.Required)
	return c.String()
}

// Canonical renders the plugin as a //mcp:plugin line.
func (p Plugin) Canonical() string {
	var c Canon
	c.Head(NamespaceMCP, "plugin")
	c.Bare("name", p.Name)
	return c.String()
}

// Canonical renders the hook as a //hook:<stage> line.
func (h HookDirective) Canonical() string {
	var c Canon
	c.Head(NamespaceHook, h.Stage.String())
	if h.HasFlow || h.Flow != "" {
		c.Bare("flow", string(h.Flow))
	}
	if h.Priority != 0 {
		c.Bare("priority", priority.Format(h.Priority))
	}
	if h.Name != "" {
		c.Bare("name", h.Name)
	}
	if h.Timeout != 0 {
		c.Bare("timeout", h.Timeout.String())
	}
	if h.OnFailure != flows.FailClosed {
		c.Bare("onfail", h.OnFailure.String())
	}
	return c.String()
}

// Canon builds a canonical directive line (Value.Canonical): the head,
// then each key in definition order.
type Canon struct{ strings.Builder }

// Head writes the directive's head, e.g. //hook:validator.
func (c *Canon) Head(ns, name string) { c.WriteString("//" + ns + ":" + name) }

// Bare writes key=v with v as is.
func (c *Canon) Bare(key, v string) { c.WriteString(" " + key + "=" + v) }

// Flag writes key when on.
func (c *Canon) Flag(key string, on bool) {
	if on {
		c.WriteString(" " + key)
	}
}

// Str writes a string value, bare when that reads back the same, quoted
// otherwise; an empty optional value is left out.
func (c *Canon) Str(key, v string, required bool) {
	if v == "" && !required {
		return
	}
	if !isPlainWord(v) {
		v = strconv.Quote(v)
	}
	c.Bare(key, v)
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
