package directive

import (
	"errors"
	"strconv"
	"strings"
)

// InterceptorDirective is the decoded value of //hook:validator or
// //hook:mutator: a function served to other processes as an SEP-2624
// interceptor (package plugins/intercept/host).
type InterceptorDirective struct {
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

func (InterceptorDirective) value() {}

// Head returns "//hook:mutator" or "//hook:validator".
func (i InterceptorDirective) Head() string {
	if i.Mutator {
		return "//" + NamespaceHook + ":mutator"
	}
	return "//" + NamespaceHook + ":validator"
}

// Canonical renders the interceptor as a //hook:validator or //hook:mutator
// line.
func (i InterceptorDirective) Canonical() string {
	var c canon
	c.WriteString(i.Head())
	c.str("name", i.Name, false)
	c.bare("events", strings.Join(i.Events, ","))
	if i.Phase != "" {
		c.bare("phase", i.Phase)
	}
	if i.HasHint {
		c.bare("priorityhint", strconv.Itoa(i.PriorityHint))
	}
	c.flag("audit", i.Audit)
	c.flag("failopen", i.FailOpen)
	c.str("description", i.Description, false)
	c.str("version", i.Version, false)
	return c.String()
}

func buildValidator(f *fields) Value { return buildInterceptor(f, false) }
func buildMutator(f *fields) Value   { return buildInterceptor(f, true) }

func buildInterceptor(f *fields, mutator bool) Value {
	n, hasHint := f.vals["priorityhint"].(int)
	return InterceptorDirective{Mutator: mutator, Name: f.str("name"), Events: f.list("events"), Phase: f.str("phase"),
		PriorityHint: n, HasHint: hasHint, Audit: f.flag("audit"), FailOpen: f.flag("failopen"),
		Description: f.str("description"), Version: f.str("version")}
}

// interceptorDefs are the definitions of //hook:validator and
// //hook:mutator.
func interceptorDefs() []Def {
	keys := func(mutator bool) []Key {
		ks := []Key{
			{Name: "name", Kind: KindString, Default: "the function name", Help: "the interceptor's name, unique within its host", check: checkInterceptorName},
			{Name: "events", Kind: KindList, Required: true, Help: "the lifecycle events it applies to: MCP methods (tools/call), * for all, or a namespace (tools/*)", check: checkInterceptorEvent},
			{Name: "phase", Kind: KindWord, Default: "request", Help: "request, response or both", check: checkPhase},
		}
		if mutator {
			ks = append(ks, Key{Name: "priorityhint", Kind: KindInt, Default: "0", Help: "order among mutators, lower first (the SEP's priorityHint)"})
		}
		return append(ks,
			Key{Name: "audit", Kind: KindFlag, Help: "audit mode by default: invokers record the result and never block or apply it"},
			Key{Name: "failopen", Kind: KindFlag, Help: "invokers let the operation through when the interceptor fails (default: they block)"},
			Key{Name: "description", Kind: KindString, Default: "the first paragraph of the doc comment, on one line", Help: "description shown to invokers"},
			Key{Name: "version", Kind: KindString, Help: "the interceptor's version, shown to invokers"},
		)
	}
	return []Def{
		{
			Namespace: NamespaceHook, Name: "validator", Targets: TargetFunc,
			Help: "serves the function as an SEP-2624 validator (package plugins/intercept/host) in the generated HookflowInterceptors; " +
				"it is func(ctx context.Context, inv *host.Invocation) (host.Verdict, error).",
			Keys:  keys(false),
			build: buildValidator,
		},
		{
			Namespace: NamespaceHook, Name: "mutator", Targets: TargetFunc,
			Help: "serves the function as an SEP-2624 mutator (package plugins/intercept/host) in the generated HookflowInterceptors; " +
				"it is func(ctx context.Context, inv *host.Invocation) (host.Mutation, error).",
			Keys:  keys(true),
			build: buildMutator,
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
