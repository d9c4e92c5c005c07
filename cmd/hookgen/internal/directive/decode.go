package directive

import (
	"cmp"
	"errors"
	"fmt"
	"go/token"
	"strconv"
	"strings"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Decoded is a directive that passed validation: its syntax (with the
// positions of its name, keys and values), its definition and its typed value.
type Decoded struct {
	Directive *Directive
	Def       *Def // read-only; shared with the registry
	Value     Value
}

// Value is the typed content of a directive: for the core's, a [Tool],
// [Resource], [ResourceTemplate], [Prompt], [PromptArg], [Plugin] or
// [HookDirective]; an extension's Build returns its own. Use a type switch.
type Value interface {
	// Canonical renders the value as a directive line in canonical form: keys
	// in definition order, optional keys with zero values left out, values bare
	// when they can be and Go-quoted otherwise. Parsing and decoding the line
	// gives the value back.
	Canonical() string
}

// Tool is the value of //mcp:tool. The annotation flags say whether the hint
// was given; a false flag means "not declared", which leaves the MCP default
// (destructiveHint and openWorldHint default to true in MCP).
type Tool struct {
	Name        string
	Title       string
	Description string
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	Scopes      []string // nil when not given
	// InputSchema and OutputSchema name package-level variables holding
	// schemas to use instead of the inferred ones; "" when not given.
	InputSchema  string
	OutputSchema string
}

// Resource is the value of //mcp:resource.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceTemplate is the value of //mcp:resource-template.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// Prompt is the value of //mcp:prompt.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Args        []PromptArg // nil when not given
}

// PromptArg is one argument of a prompt: an element of the args= list of
// //mcp:prompt ("code" is a required argument, "language?" an optional one,
// without title or description), or the value of an //mcp:arg directive.
type PromptArg struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// Plugin is the value of //mcp:plugin.
type Plugin struct {
	Name string
}

// HookDirective is the decoded value of a //hook:<stage> directive.
type HookDirective struct {
	Stage    stages.Stage
	Flow     flows.ID // "" when not given
	HasFlow  bool     // flow= was given
	Priority int      // fits in an int32
	Name     string   // "" when not given
	// Timeout bounds each call (flows.Hook.Timeout); 0 when not given.
	Timeout time.Duration
	// OnFailure is the failure policy (flows.Hook.OnFailure).
	OnFailure flows.FailurePolicy
}

// Fields holds the checked values of a directive's keys while decoding; a
// definition's Build reads them.
type Fields struct {
	stage stages.Stage
	vals  map[string]any
}

// Str returns the value of a string or word key; "" when not given.
func (f *Fields) Str(k string) string { s, _ := f.vals[k].(string); return s }

// Flag reports whether a flag key was given.
func (f *Fields) Flag(k string) bool { b, _ := f.vals[k].(bool); return b }

// List returns the elements of a list key; nil when not given.
func (f *Fields) List(k string) []string {
	l, _ := f.vals[k].([]string)
	return l
}

// Int returns the value of an int key and whether it was given.
func (f *Fields) Int(k string) (int, bool) { n, ok := f.vals[k].(int); return n, ok }

// Has reports whether the key was given.
func (f *Fields) Has(k string) bool { _, ok := f.vals[k]; return ok }

func buildTool(f *Fields) Value {
	return Tool{
		Name: f.Str("name"), Title: f.Str("title"), Description: f.Str("description"),
		ReadOnly: f.Flag("readonly"), Destructive: f.Flag("destructive"),
		Idempotent: f.Flag("idempotent"), OpenWorld: f.Flag("openworld"),
		Scopes: f.List("scopes"), InputSchema: f.Str("inputschema"), OutputSchema: f.Str("outputschema"),
	}
}

func buildResource(f *Fields) Value {
	return Resource{URI: f.Str("uri"), Name: f.Str("name"), Title: f.Str("title"), Description: f.Str("description"), MIMEType: f.Str("mime")}
}

func buildResourceTemplate(f *Fields) Value {
	return ResourceTemplate{URITemplate: f.Str("uri"), Name: f.Str("name"), Title: f.Str("title"), Description: f.Str("description"), MIMEType: f.Str("mime")}
}

func buildPrompt(f *Fields) Value {
	p := Prompt{Name: f.Str("name"), Title: f.Str("title"), Description: f.Str("description")}
	for _, a := range f.List("args") {
		p.Args = append(p.Args, PromptArg{Name: promptArgName(a), Required: !strings.HasSuffix(a, "?")})
	}
	return p
}

func buildPlugin(f *Fields) Value { return Plugin{Name: f.Str("name")} }

func buildArg(f *Fields) Value {
	return PromptArg{Name: f.Str("name"), Title: f.Str("title"), Description: f.Str("description"), Required: !f.Flag("optional")}
}

func buildHook(f *Fields) Value {
	p, _ := f.vals["priority"].(int)
	d, _ := f.vals["timeout"].(time.Duration)
	policy, _ := flows.ParseFailurePolicy(cmp.Or(f.Str("onfail"), "closed"))
	return HookDirective{Stage: f.stage, Flow: flows.ID(f.Str("flow")), HasFlow: f.Has("flow"), Priority: p, Name: f.Str("name"),
		Timeout: d, OnFailure: policy}
}

// decoder collects the diagnostics of one Decode call.
type decoder struct {
	d     *Directive
	diags []Diagnostic
}

func (dc *decoder) errorf(pos token.Position, format string, args ...any) {
	dc.diags = append(dc.diags, Diagnostic{Pos: pos, Severity: Error, Msg: fmt.Sprintf(format, args...)})
}

// Decode validates a parsed directive against its definition and returns its
// typed value. It reports every error it finds: an unknown directive, stage,
// key or flow (with a "did you mean" hint), a duplicate key, a missing
// required key, a value of the wrong kind, a flag given a value, keys that
// exclude each other, and values a key's own check rejects. The diagnostics
// are sorted by position. The result is nil when Decode or [Parse] found an
// error; arguments Parse marked bad are counted as present but not checked
// again. Decode(nil) returns nil, nil.
func (r *Registry) Decode(d *Directive) (*Decoded, []Diagnostic) {
	if d == nil {
		return nil, nil
	}
	dc := decoder{d: d}
	def := r.lookup(d.Namespace, d.Name)
	if def == nil {
		dc.unknownDirective(r)
		return nil, dc.diags
	}
	f := &Fields{vals: map[string]any{}}
	if def.Stage {
		st, err := stages.Parse(d.Name)
		if err != nil {
			if _, near := stages.Suggest(d.Name); !near {
				if best, ok := suggest.Closest(d.Name, r.hookNames()); ok {
					dc.errorf(d.NamePos, "unknown directive %q (did you mean %q?)", d.Namespace+":"+d.Name, NamespaceHook+":"+best)
					return nil, dc.diags
				}
			}
			dc.errorf(d.NamePos, "%s", err.Error())
		}
		f.stage = st
	}
	seen := map[string]Arg{}
	for _, a := range d.Args {
		k := def.Key(a.Key)
		if k == nil {
			dc.unknownKey(def, a)
			continue
		}
		if _, dup := seen[k.Name]; dup {
			dc.errorf(a.Pos, "duplicate key %q for %s", k.Name, d.Head())
			continue
		}
		seen[k.Name] = a
		if a.Bad {
			continue
		}
		if v, ok := dc.value(k, a); ok {
			f.vals[k.Name] = v
		}
	}
	for _, k := range def.Keys {
		if k.Required {
			if _, ok := seen[k.Name]; !ok {
				dc.errorf(d.NamePos, "missing required key %q for %s", k.Name, d.Head())
			}
		}
		a, ok := seen[k.Name]
		if !ok {
			continue
		}
		for _, x := range k.Excludes {
			b, ok := seen[x]
			if !ok {
				continue
			}
			later, other := a, b
			if b.Pos.Offset > a.Pos.Offset {
				later, other = b, a
			}
			dc.errorf(later.Pos, "key %q cannot be used with %q", later.Key, other.Key)
		}
	}
	SortDiagnostics(dc.diags)
	if len(dc.diags) > 0 || d.syntaxErr {
		return nil, dc.diags
	}
	return &Decoded{Directive: d, Def: def, Value: def.Build(f)}, nil
}

func (dc *decoder) unknownDirective(r *Registry) {
	d := dc.d
	name := d.Namespace + ":" + d.Name
	if best, ok := suggest.Closest(d.Name, r.mcpNames()); ok {
		dc.errorf(d.NamePos, "unknown directive %q (did you mean %q?)", name, NamespaceMCP+":"+best)
		return
	}
	if st, ok := stages.Suggest(d.Name); ok {
		dc.errorf(d.NamePos, "unknown directive %q (did you mean %q?)", name, NamespaceHook+":"+st.String())
		return
	}
	if best, ok := suggest.Closest(d.Name, r.hookNames()); ok {
		dc.errorf(d.NamePos, "unknown directive %q (did you mean %q?)", name, NamespaceHook+":"+best)
		return
	}
	dc.errorf(d.NamePos, "unknown directive %q (mcp directives: %s)", name, strings.Join(r.mcpNames(), ", "))
}

func (dc *decoder) unknownKey(def *Def, a Arg) {
	if best, ok := suggest.Closest(a.Key, def.keyNames()); ok {
		dc.errorf(a.Pos, "unknown key %q for %s (did you mean %q?)", a.Key, dc.d.Head(), best)
		return
	}
	dc.errorf(a.Pos, "unknown key %q for %s (keys: %s)", a.Key, dc.d.Head(), strings.Join(def.keyNames(), ", "))
}

// value checks one argument against its key and returns the typed value.
func (dc *decoder) value(k *Key, a Arg) (any, bool) {
	if k.Kind == KindFlag {
		if a.HasValue {
			dc.errorf(a.ValuePos, "flag %q takes no value", k.Name)
			return nil, false
		}
		return true, true
	}
	if !a.HasValue || !a.Quoted && a.Value == "" {
		dc.errorf(a.Pos, "missing value for key %q", k.Name)
		return nil, false
	}
	if a.Quoted && k.Kind != KindString {
		dc.errorf(a.ValuePos, "invalid value for key %q: %s must not be quoted", k.Name, kindNoun(k.Kind))
		return nil, false
	}
	switch k.Kind {
	case KindInt:
		n, err := strconv.ParseInt(a.Value, 0, 32)
		if err != nil {
			why := "not an integer"
			if errors.Is(err, strconv.ErrRange) {
				why = "out of range for int32"
			}
			dc.errorf(a.ValuePos, "invalid value %q for key %q: %s", a.Value, k.Name, why)
			return nil, false
		}
		return int(n), true
	case KindPriority:
		n, err := priority.Parse(a.Value)
		if err != nil {
			name, _, _ := strings.Cut(strings.TrimLeft(a.Value, "+-"), "+")
			if best, ok := suggest.Closest(name, priority.Names()); ok && best != name {
				dc.errorf(a.ValuePos, "invalid value %q for key %q: unknown position %q (did you mean %q?)", a.Value, k.Name, name, best)
			} else {
				dc.errorf(a.ValuePos, "invalid value %q for key %q: %v", a.Value, k.Name, err)
			}
			return nil, false
		}
		return n, true
	case KindDuration:
		d, err := time.ParseDuration(a.Value)
		if err != nil || d <= 0 {
			dc.errorf(a.ValuePos, "invalid value %q for key %q: want a positive duration such as 250ms or 2s", a.Value, k.Name)
			return nil, false
		}
		return d, true
	case KindWord:
		if !isWord(a.Value) {
			dc.errorf(a.ValuePos, "invalid value %q for key %q: want a word of A-Z a-z 0-9 _ . -", a.Value, k.Name)
			return nil, false
		}
	case KindFlow:
		id, err := flows.Parse(a.Value)
		if err != nil {
			if best, ok := suggestFlow(a.Value); ok {
				dc.errorf(a.ValuePos, "unknown flow %q (did you mean %q?)", a.Value, best)
			} else {
				dc.errorf(a.ValuePos, "unknown flow %q (flows: %s)", a.Value, strings.Join(flowIDs(), ", "))
			}
			return nil, false
		}
		return string(id), true
	case KindList:
		return dc.list(k, a)
	}
	if k.Check != nil {
		if err := k.Check(a.Value); err != nil {
			dc.errorf(a.ValuePos, "invalid value %q for key %q: %s", a.Value, k.Name, err.Error())
			return nil, false
		}
	}
	return a.Value, true
}

// list splits a bare list value and checks each element.
func (dc *decoder) list(k *Key, a Arg) (any, bool) {
	var out []string
	ok := true
	seen := map[string]bool{}
	off, lastEmpty := 0, -1
	for _, e := range strings.Split(a.Value, ",") {
		pos := at(a.ValuePos, off)
		id := e
		if k.Same != nil {
			id = k.Same(e)
		}
		switch {
		case e == "":
			// Point at the comma that ends the empty element, or at the one
			// before it when it is the last; report each comma once.
			c := min(off, len(a.Value)-1)
			if c != lastEmpty {
				dc.errorf(at(a.ValuePos, c), "empty element in list for key %q", k.Name)
			}
			lastEmpty, ok = c, false
		case seen[id]:
			dc.errorf(pos, "duplicate element %q in list for key %q", e, k.Name)
			ok = false
		default:
			if k.Check != nil {
				if err := k.Check(e); err != nil {
					dc.errorf(pos, "invalid element %q in list for key %q: %s", e, k.Name, err.Error())
					ok = false
				}
			}
		}
		seen[id] = true
		out = append(out, e)
		off += len(e) + 1
	}
	return out, ok
}

// SuggestFlow returns the flow an unknown flow ID probably meant, as the
// "did you mean" hints of flow= do.
func SuggestFlow(s string) (flows.ID, bool) { return suggestFlow(s) }

// suggestFlow returns the flow an unknown flow ID probably meant: a near
// miss (flows.Suggest), the MCP method that starts a flow ("tools/call"), a
// flow's name without its namespace ("call-tool"), or the one flow the value
// is a prefix of ("tools:call").
func suggestFlow(s string) (flows.ID, bool) {
	if id, ok := flows.Suggest(s); ok {
		return id, true
	}
	if id, ok := flows.ForMethod(s); ok {
		return id, true
	}
	if id, ok := flows.ForSent(s); ok {
		return id, true
	}
	var match flows.ID
	n := 0
	for _, f := range flows.All() {
		if f.ID.Name() == s || len(s) > len(f.ID.Namespace())+1 && strings.HasPrefix(string(f.ID), s) {
			match = f.ID
			n++
		}
	}
	return match, n == 1
}

// kindNoun names a kind in "must not be quoted" errors.
func kindNoun(k Kind) string {
	switch k {
	case KindInt:
		return "an integer"
	case KindWord:
		return "a word"
	case KindFlow:
		return "a flow ID"
	case KindPriority:
		return "a priority"
	case KindDuration:
		return "a duration"
	case KindList:
		return "a list"
	}
	return "a " + k.String()
}

// isWord reports whether s is a non-empty run of A-Z a-z 0-9 _ . -.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return s != ""
}

// CheckTarget reports an error, at the directive's "//", when the directive
// may not sit on a declaration of kind t (one of TargetType, TargetMethod,
// TargetFunc); nil when it may.
func (d *Decoded) CheckTarget(t Target) *Diagnostic {
	if d.Def.Allows(t) {
		return nil
	}
	return &Diagnostic{
		Pos:      d.Directive.Pos,
		Severity: Error,
		Msg:      fmt.Sprintf("%s must be on a %s, not on a %s", d.Directive.Head(), d.Def.Targets, t),
	}
}

// ParseComment parses, decodes and checks one comment line for look-alikes:
// it returns the decoded directive when the line is a valid directive, and
// nil with the line's diagnostics (sorted by position) otherwise. A line that
// is not hookgen's, like //go:generate or prose, gives nil, nil.
func (r *Registry) ParseComment(text string, pos token.Position) (*Decoded, []Diagnostic) {
	d, diags := Parse(text, pos)
	if d == nil {
		if w := r.Lookalike(text, pos); w != nil {
			return nil, []Diagnostic{*w}
		}
		return nil, nil
	}
	dec, more := r.Decode(d)
	diags = append(diags, more...)
	if len(diags) > 0 {
		SortDiagnostics(diags)
		return nil, diags
	}
	return dec, nil
}
