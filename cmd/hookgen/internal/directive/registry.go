package directive

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// Kind is the type of a directive key's value.
type Kind uint8

// The key kinds.
const (
	KindString   Kind = iota + 1 // a bare word or a Go-quoted string
	KindInt                      // a bare Go integer literal that fits in an int32
	KindFlag                     // a lone word with no value; present means true
	KindWord                     // a bare word of A-Z a-z 0-9 _ . -
	KindList                     // a bare comma-separated list of non-empty, distinct elements
	KindFlow                     // a bare flow ID, checked with flows.Parse
	KindPriority                 // a bare priority: an int32, a position name, or a name with an offset (priority.Parse)
	KindDuration                 // a bare positive Go duration, e.g. 250ms or 2s (time.ParseDuration)
)

// String returns the kind's name, e.g. "int", as -list shows it.
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindInt:
		return "int"
	case KindFlag:
		return "flag"
	case KindWord:
		return "word"
	case KindList:
		return "list"
	case KindFlow:
		return "flow"
	case KindPriority:
		return "priority"
	case KindDuration:
		return "duration"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Target is the set of declaration kinds a directive may sit on.
type Target uint8

// The targets. A directive's Targets is a union of them.
const (
	TargetType    Target = 1 << iota // a type declaration
	TargetMethod                     // a method declaration
	TargetFunc                       // a top-level function declaration
	TargetPackage                    // the package clause
)

// String returns the targets joined by " or ", e.g. "method or function".
func (t Target) String() string {
	var parts []string
	for _, x := range [...]struct {
		t    Target
		name string
	}{{TargetType, "type"}, {TargetMethod, "method"}, {TargetFunc, "function"}, {TargetPackage, "package clause"}} {
		if t&x.t != 0 {
			parts = append(parts, x.name)
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " or ")
}

// Key describes one key of a directive.
type Key struct {
	Name     string
	Kind     Kind
	Required bool
	Default  string   // what leaving the key out means, for -list; "" when nothing needs saying
	Help     string   // one lowercase line for -list
	Excludes []string // keys that must not be given together with this one

	// Check is extra validation of a value (of each element, for a
	// list); nil for none.
	Check func(string) error
	// Same is, for a list, the identity of an element, for duplicate
	// checks; nil for the element itself.
	Same func(string) string
}

// Def is the typed definition of one directive: its name, keys, targets and
// help. Parsing, validation and -list all read it.
type Def struct {
	Namespace string // NamespaceMCP or NamespaceHook
	Name      string // the name after the colon; "<stage>" for //hook:
	Stage     bool   // the name is a stage name, checked with stages.Parse
	Targets   Target
	Help      string // one or more lowercase sentences for -list
	Keys      []Key

	// Build makes the decoded value from the checked keys.
	Build func(*Fields) Value
}

// Head returns the directive's head as -list shows it, e.g. "//mcp:tool" or
// "//hook:<stage>".
func (d *Def) Head() string { return "//" + d.Namespace + ":" + d.Name }

// Key returns the key named name, or nil.
func (d *Def) Key(name string) *Key {
	for i := range d.Keys {
		if d.Keys[i].Name == name {
			return &d.Keys[i]
		}
	}
	return nil
}

// Allows reports whether the directive may sit on a declaration of kind t.
func (d *Def) Allows(t Target) bool { return d.Targets&t == t && t != 0 }

// Usage returns the directive's synopsis, e.g.
// "//mcp:plugin name=<word>", with optional keys in brackets.
func (d *Def) Usage() string {
	var b strings.Builder
	b.WriteString(d.Head())
	for _, k := range d.Keys {
		b.WriteByte(' ')
		if !k.Required {
			b.WriteByte('[')
		}
		b.WriteString(k.synopsis())
		if !k.Required {
			b.WriteByte(']')
		}
	}
	return b.String()
}

func (k *Key) synopsis() string {
	if k.Kind == KindFlag {
		return k.Name
	}
	return k.Name + "=<" + k.Kind.String() + ">"
}

func (d *Def) keyNames() []string {
	out := make([]string, len(d.Keys))
	for i, k := range d.Keys {
		out[i] = k.Name
	}
	return out
}

// Registry holds the definitions of every directive hookgen understands. It is
// immutable after [New] builds it and safe for concurrent use.
type Registry struct {
	defs []Def // in -list order
	mcp  map[string]*Def
	hook *Def
	// hookNamed are the //hook: directives whose name is not a stage
	// (an extension's, such as //hook:validator).
	hookNamed map[string]*Def
}

// New returns a registry with hookflow's core directives (//mcp:tool,
// //mcp:resource, //mcp:resource-template, //mcp:prompt, //mcp:arg,
// //mcp:plugin and //hook:<stage>) and extra, the directives of hookgen's
// extensions (package ext). -list shows the //mcp: directives first, then
// the //hook: ones, the core's before the extensions' in each, in the
// order given. A directive whose head is already taken, or an extra one
// whose name is a stage, is an error: an extension adds directives, it
// never replaces one.
func New(extra ...Def) (*Registry, error) {
	var defs []Def
	for _, ns := range []string{NamespaceMCP, NamespaceHook} {
		for _, list := range [][]Def{defaultDefs(), extra} {
			for _, d := range list {
				if d.Namespace == ns {
					defs = append(defs, d)
				}
			}
		}
	}
	for _, d := range extra {
		if d.Namespace != NamespaceMCP && d.Namespace != NamespaceHook {
			return nil, fmt.Errorf("directive %s: the namespace is neither %s nor %s", d.Head(), NamespaceMCP, NamespaceHook)
		}
	}
	r := &Registry{defs: defs, mcp: map[string]*Def{}, hookNamed: map[string]*Def{}}
	for i := range r.defs {
		d := &r.defs[i]
		if d.Build == nil {
			return nil, fmt.Errorf("directive %s has no Build", d.Head())
		}
		switch {
		case d.Namespace == NamespaceHook && d.Stage:
			if r.hook != nil {
				return nil, fmt.Errorf("directive %s: only one definition may be the stage directive", d.Head())
			}
			r.hook = d
		case d.Namespace == NamespaceHook:
			if _, isStage := stages.Parse(d.Name); isStage == nil {
				return nil, fmt.Errorf("directive %s: its name is a stage's", d.Head())
			}
			if r.hookNamed[d.Name] != nil {
				return nil, fmt.Errorf("directive %s is defined twice", d.Head())
			}
			r.hookNamed[d.Name] = d
		default:
			if r.mcp[d.Name] != nil {
				return nil, fmt.Errorf("directive %s is defined twice", d.Head())
			}
			r.mcp[d.Name] = d
		}
	}
	return r, nil
}

// Defs returns a copy of every definition, in -list order.
func (r *Registry) Defs() []Def {
	out := make([]Def, len(r.defs))
	for i, d := range r.defs {
		d.Keys = append([]Key(nil), d.Keys...)
		out[i] = d
	}
	return out
}

// lookup returns the definition of a parsed directive, or nil. A //hook:
// name that is not one of the named hook directives is a stage.
func (r *Registry) lookup(ns, name string) *Def {
	if ns == NamespaceHook {
		if d := r.hookNamed[name]; d != nil {
			return d
		}
		return r.hook
	}
	return r.mcp[name]
}

// hookNames returns the names of the //hook: directives that are not
// stages, in -list order.
func (r *Registry) hookNames() []string {
	var out []string
	for _, d := range r.defs {
		if d.Namespace == NamespaceHook && !d.Stage {
			out = append(out, d.Name)
		}
	}
	return out
}

// mcpNames returns the names of the //mcp: directives in -list order.
func (r *Registry) mcpNames() []string {
	var out []string
	for _, d := range r.defs {
		if d.Namespace == NamespaceMCP {
			out = append(out, d.Name)
		}
	}
	return out
}

// Synopsis returns the usage line of every directive, in -list's order and
// followed by where it may sit: the grammar block of docs/hookgen.md.
func (r *Registry) Synopsis() string {
	var b strings.Builder
	for _, d := range r.defs {
		b.WriteString(d.Usage() + "    (on a " + d.Targets.String() + ")\n")
	}
	return b.String()
}

// List renders the registry for hookgen -list: every directive in a stable
// order with its synopsis, help, targets and keys.
func (r *Registry) List() string {
	var b strings.Builder
	for i, d := range r.defs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.Usage())
		b.WriteByte('\n')
		wrap(&b, "    ", d.Help)
		b.WriteString("    on: " + d.Targets.String() + "\n")
		if d.Stage {
			b.WriteString("    stages: " + strings.Join(stages.Names(), ", ") + "\n")
			b.WriteString("    signatures, per flow (a method of an entity type takes its flow's view; T is the type):\n")
			for _, line := range hookSignatures() {
				b.WriteString("      " + line + "\n")
			}
		}
		width := 0
		for _, k := range d.Keys {
			width = max(width, len(k.synopsis()))
		}
		for _, k := range d.Keys {
			s := k.synopsis()
			line := k.Help
			if k.Required {
				line = "required; " + line
			}
			if k.Default != "" {
				line += " (default: " + k.Default + ")"
			}
			if len(k.Excludes) > 0 {
				line += " (not with " + strings.Join(k.Excludes, ", ") + ")"
			}
			b.WriteString("    " + s + strings.Repeat(" ", width-len(s)+2) + line + "\n")
			if k.Kind == KindFlow {
				wrap(&b, strings.Repeat(" ", width+6), "flows: "+strings.Join(flowIDs(), ", "))
			}
		}
	}
	return b.String()
}

// hookSignatures returns, per flow of the flow table, the signature a hook
// function of that flow must have.
func hookSignatures() []string {
	var out []string
	for _, f := range flows.All() {
		sig := "func(c *flows.Context) error"
		switch f.View {
		case flows.ViewContext:
		case flows.ViewToolCall:
			sig = "func (T) M(c flows.ToolCall[In, Out]) error (embedded, In and Out the tool's); external: " + sig
		case flows.ViewList:
			sig += " or func(c flows.List[*mcp." + f.Result + "]) error"
		default:
			sig += " or func(c flows." + f.View.String() + ") error"
		}
		out = append(out, string(f.ID)+": "+sig)
	}
	return out
}

// wrap writes text in lines of at most 80 bytes, each starting with indent.
func wrap(b *strings.Builder, indent, text string) {
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > 80 {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
}

func flowIDs() []string {
	all := flows.All()
	out := make([]string, len(all))
	for i, f := range all {
		out[i] = string(f.ID)
	}
	return out
}

// defaultDefs builds hookflow's directive definitions, in -list order.
func defaultDefs() []Def {
	description := Key{Name: "description", Kind: KindString, Default: "the first paragraph of the doc comment, on one line", Help: "description shown to clients and models"}
	title := Key{Name: "title", Kind: KindString, Help: "human-readable display name"}
	entityName := Key{Name: "name", Kind: KindString, Help: "programmatic name", Check: CheckNonEmpty}
	mime := Key{Name: "mime", Kind: KindString, Help: "MIME type of the contents, e.g. text/plain", Check: checkMIME}
	return []Def{
		{
			Namespace: NamespaceMCP, Name: "tool", Targets: TargetType,
			Help: "declares the type as an MCP tool; its execute method takes the typed input and returns the typed output. " +
				"//hook: directives on its methods are embedded hooks of its flows.",
			Keys: []Key{
				{Name: "name", Kind: KindString, Required: true, Help: "tool name: 1 to 64 of A-Z a-z 0-9 _ - . /", Check: CheckToolName},
				title,
				description,
				{Name: "readonly", Kind: KindFlag, Help: "annotation readOnlyHint: the tool does not modify its environment"},
				{Name: "destructive", Kind: KindFlag, Help: "annotation destructiveHint: the tool may perform destructive updates", Excludes: []string{"readonly"}},
				{Name: "idempotent", Kind: KindFlag, Help: "annotation idempotentHint: repeating a call with the same arguments has no further effect"},
				{Name: "openworld", Kind: KindFlag, Help: "annotation openWorldHint: the tool reaches an open world of external entities"},
				{Name: "scopes", Kind: KindList, Help: "auth scopes a caller must hold, e.g. read,write", Check: checkScope},
				{Name: "inputschema", Kind: KindWord, Default: "inferred from the input type", Check: checkIdent,
					Help: "a package-level variable whose value is the input schema, sent as is"},
				{Name: "outputschema", Kind: KindWord, Default: "inferred from the output type", Check: checkIdent,
					Help: "a package-level variable whose value is the output schema, sent as is"},
			},
			Build: buildTool,
		},
		{
			Namespace: NamespaceMCP, Name: "resource", Targets: TargetType,
			Help: "declares the type as an MCP resource with a fixed URI; its read method returns the contents.",
			Keys: []Key{
				{Name: "uri", Kind: KindString, Required: true, Help: "the resource's URI, with a scheme, e.g. file:///etc/motd", Check: checkResourceURI},
				entityName,
				title,
				description,
				mime,
			},
			Build: buildResource,
		},
		{
			Namespace: NamespaceMCP, Name: "resource-template", Targets: TargetType,
			Help: "declares the type as an MCP resource template (RFC 6570); its read method returns the contents of a matching URI.",
			Keys: []Key{
				{Name: "uri", Kind: KindString, Required: true, Help: "the URI template, with at least one {variable}, e.g. file:///logs/{day}", Check: checkURITemplate},
				entityName,
				title,
				description,
				mime,
			},
			Build: buildResourceTemplate,
		},
		{
			Namespace: NamespaceMCP, Name: "prompt", Targets: TargetType,
			Help: "declares the type as an MCP prompt; its Get method returns the messages.",
			Keys: []Key{
				{Name: "name", Kind: KindString, Required: true, Help: "prompt name", Check: CheckNonEmpty},
				title,
				description,
				{Name: "args", Kind: KindList, Help: "the prompt's arguments, each required unless it ends in ?, e.g. code,language?",
					Check: checkPromptArg, Same: promptArgName},
			},
			Build: buildPrompt,
		},
		{
			Namespace: NamespaceMCP, Name: "arg", Targets: TargetType,
			Help: "declares one argument of the //mcp:prompt type it sits on, with a title or description; " +
				"//mcp:arg arguments follow those of args=, in source order.",
			Keys: []Key{
				{Name: "name", Kind: KindString, Required: true, Help: "argument name", Check: CheckNonEmpty},
				title,
				{Name: "description", Kind: KindString, Help: "what the argument is for"},
				{Name: "optional", Kind: KindFlag, Help: "the argument may be left out (arguments are required by default)"},
			},
			Build: buildArg,
		},
		{
			Namespace: NamespaceMCP, Name: "plugin", Targets: TargetType,
			Help: "declares the type as a plugin; //hook: directives on its methods are external hooks and need flow=.",
			Keys: []Key{
				{Name: "name", Kind: KindWord, Required: true, Help: "plugin name"},
			},
			Build: buildPlugin,
		},
		{
			Namespace: NamespaceHook, Name: "<stage>", Stage: true, Targets: TargetMethod | TargetFunc,
			Help: "runs the method or function as a hook at the stage. On a method of an entity type it is an embedded hook; " +
				"on a method of an //mcp:plugin type or on a top-level function it is an external hook.",
			Keys: []Key{
				{Name: "flow", Kind: KindFlow, Default: "the entity's flow; required for external hooks", Help: "the flow the hook runs in"},
				{Name: "priority", Kind: KindPriority, Default: "0", Help: "order within the stage, higher first: an int32, or a position of package priority with an optional offset (auth, auth+10, cache-1)"},
				{Name: "name", Kind: KindWord, Default: "the method or function name", Help: "the hook's name, part of its stable ID"},
				{Name: "timeout", Kind: KindDuration, Default: "no bound", Help: "bound on each call, e.g. 250ms: the hook's context is cancelled and the run goes on by onfail"},
				{Name: "onfail", Kind: KindWord, Default: "closed", Check: checkFailurePolicy,
					Help: "what the hook's failure (error, panic, timeout) does: closed stops the run; open logs and records it, and the run goes on"},
			},
			Build: buildHook,
		},
	}
}
