package interceptor

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

// Directive is the decoded value of //hook:validator or
// //hook:mutator: a function served to other processes as an SEP-2624
// interceptor (package plugins/intercept/host).
type Directive struct {
	// Mutator is true for //hook:mutator, false for //hook:validator.
	Mutator bool
	// Name is the interceptor's name; "" when not given (the function's).
	Name string
	// Events are the lifecycle events it applies to, e.g. tools/call or *.
	Events []string
	// Phase is "request", "response" or "both"; "" when not given
	// (request).
	Phase string
	// PriorityHint orders a mutator (HasHint says it was given).
	PriorityHint int
	HasHint      bool
	// Audit and FailOpen are the author's defaults.
	Audit, FailOpen bool
	// Description and Version describe it to invokers; "" when not given.
	Description, Version string
}

// Head returns "//hook:mutator" or "//hook:validator".
func (i Directive) Head() string {
	if i.Mutator {
		return "//" + directive.NamespaceHook + ":mutator"
	}
	return "//" + directive.NamespaceHook + ":validator"
}

// Canonical renders the interceptor as a //hook:validator or //hook:mutator
// line.
func (i Directive) Canonical() string {
	var c directive.Canon
	c.WriteString(i.Head())
	c.Str("name", i.Name, false)
	c.Bare("events", strings.Join(i.Events, ","))
	if i.Phase != "" {
		c.Bare("phase", i.Phase)
	}
	if i.HasHint {
		c.Bare("priorityhint", strconv.Itoa(i.PriorityHint))
	}
	c.Flag("audit", i.Audit)
	c.Flag("failopen", i.FailOpen)
	c.Str("description", i.Description, false)
	c.Str("version", i.Version, false)
	return c.String()
}

func buildValidator(f *directive.Fields) directive.Value { return buildInterceptor(f, false) }
func buildMutator(f *directive.Fields) directive.Value   { return buildInterceptor(f, true) }

func buildInterceptor(f *directive.Fields, mutator bool) directive.Value {
	n, hasHint := f.Int("priorityhint")
	return Directive{Mutator: mutator, Name: f.Str("name"), Events: f.List("events"), Phase: f.Str("phase"),
		PriorityHint: n, HasHint: hasHint, Audit: f.Flag("audit"), FailOpen: f.Flag("failopen"),
		Description: f.Str("description"), Version: f.Str("version")}
}

// defs are the definitions of //hook:validator and
// //hook:mutator.
func defs() []directive.Def {
	keys := func(mutator bool) []directive.Key {
		ks := []directive.Key{
			{Name: "name", Kind: directive.KindString, Default: "the function name", Help: "the interceptor's name, unique within its host", Check: checkInterceptorName},
			{Name: "events", Kind: directive.KindList, Required: true, Help: "the lifecycle events it applies to: MCP methods (tools/call), * for all, or a namespace (tools/*)", Check: checkInterceptorEvent},
			{Name: "phase", Kind: directive.KindWord, Default: "request", Help: "request, response or both", Check: checkPhase},
		}
		if mutator {
			ks = append(ks, directive.Key{Name: "priorityhint", Kind: directive.KindInt, Default: "0", Help: "order among mutators, lower first (the SEP's priorityHint)"})
		}
		return append(ks,
			directive.Key{Name: "audit", Kind: directive.KindFlag, Help: "audit mode by default: invokers record the result and never block or apply it"},
			directive.Key{Name: "failopen", Kind: directive.KindFlag, Help: "invokers let the operation through when the interceptor fails (default: they block)"},
			directive.Key{Name: "description", Kind: directive.KindString, Default: "the first paragraph of the doc comment, on one line", Help: "description shown to invokers"},
			directive.Key{Name: "version", Kind: directive.KindString, Help: "the interceptor's version, shown to invokers"},
		)
	}
	return []directive.Def{
		{
			Namespace: directive.NamespaceHook, Name: "validator", Targets: directive.TargetFunc,
			Help: "serves the function as an SEP-2624 validator (package plugins/intercept/host) in the generated HookflowInterceptors; " +
				"it is func(ctx context.Context, inv *host.Invocation) (host.Verdict, error).",
			Keys:  keys(false),
			Build: buildValidator,
		},
		{
			Namespace: directive.NamespaceHook, Name: "mutator", Targets: directive.TargetFunc,
			Help: "serves the function as an SEP-2624 mutator (package plugins/intercept/host) in the generated HookflowInterceptors; " +
				"it is func(ctx context.Context, inv *host.Invocation) (host.Mutation, error).",
			Keys:  keys(true),
			Build: buildMutator,
		},
	}
}

// checkInterceptorName accepts a non-empty name without spaces or control
// characters.
func checkInterceptorName(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			return errors.New("must not contain spaces or control characters")
		}
	}
	return nil
}

// checkInterceptorEvent accepts "*", a namespace wildcard "ns/*", or an event
// "ns/operation".
func checkInterceptorEvent(s string) error {
	if s == "*" {
		return nil
	}
	ns, op, ok := strings.Cut(s, "/")
	if !ok || ns == "" || op == "" || strings.Contains(ns, "*") || (strings.Contains(op, "*") && op != "*") {
		return errors.New("want an event such as tools/call, a namespace such as tools/*, or *")
	}
	return nil
}

func checkPhase(s string) error {
	switch s {
	case "request", "response", "both":
		return nil
	}
	return errors.New("want request, response or both")
}
