package policy

//go:generate go tool hookgen

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// The personal data RedactPII replaces, and with what.
var pii = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`), "[email]"},
	{regexp.MustCompile(`\b(?:\d[ -]?){13,16}\b`), "[card]"},
	{regexp.MustCompile(`\+?\d{1,3}[ .-]?\(?\d{2,4}\)?[ .-]?\d{3,4}[ .-]?\d{3,4}\b`), "[phone]"},
}

// RedactPII replaces e-mail addresses, card numbers and phone numbers in
// every string of a tool call's request and result.
//
// It runs on requests, so that the tool never sees the data, and on
// results, so that what the tool's output holds is redacted before the
// client reads it; its priority hint puts it in the SEP's
// security-sanitization range, before ordinary mutators.
//
//hook:mutator name=pii-redactor events=tools/call phase=both priorityhint=-100000 version=1.0.0
func RedactPII(ctx context.Context, inv *host.Invocation) (host.Mutation, error) {
	var v any
	if err := json.Unmarshal(inv.Payload, &v); err != nil {
		return host.Mutation{}, fmt.Errorf("the payload is not JSON: %w", err)
	}
	n := 0
	v = redact(v, &n)
	if n == 0 {
		return host.Unchanged(), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return host.Mutation{}, err
	}
	m := host.Replace(b)
	m.Info = map[string]any{"redactions": n}
	return m, nil
}

// redact returns v with the personal data of its strings replaced,
// counting the replacements in n. Keys are kept.
func redact(v any, n *int) any {
	switch x := v.(type) {
	case string:
		for _, p := range pii {
			x = p.re.ReplaceAllStringFunc(x, func(string) string { *n++; return p.with })
		}
		return x
	case []any:
		for i := range x {
			x[i] = redact(x[i], n)
		}
	case map[string]any:
		for k := range x {
			x[k] = redact(x[k], n)
		}
	}
	return v
}

// The commands RefuseDestructive blocks.
var destructive = []string{"rm -rf", "drop table", "mkfs", "shutdown"}

// RefuseDestructive blocks a tool call whose arguments hold a destructive
// shell or SQL command, naming the argument.
//
//hook:validator name=no-destructive-commands events=tools/call version=1.0.0
func RefuseDestructive(ctx context.Context, inv *host.Invocation) (host.Verdict, error) {
	var req struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(inv.Payload, &req); err != nil {
		return host.Verdict{}, fmt.Errorf("the payload is not a tools/call request: %w", err)
	}
	var found []wire.Message
	for k, v := range req.Params.Arguments {
		s, ok := v.(string)
		if !ok {
			continue
		}
		for _, cmd := range destructive {
			if strings.Contains(strings.ToLower(s), cmd) {
				found = append(found, wire.Message{Path: "params.arguments." + k, Message: fmt.Sprintf("%q is a destructive command", cmd), Severity: wire.Error})
			}
		}
	}
	if len(found) == 0 {
		return host.Allow(), nil
	}
	return host.Verdict{Valid: false, Severity: wire.Error, Messages: found}, nil
}
