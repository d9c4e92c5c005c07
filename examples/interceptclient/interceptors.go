package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// secretPrefixes start the credentials the client must never send: live
// payment keys, GitHub tokens, AWS access key IDs.
var secretPrefixes = []string{"sk_live_", "ghp_", "AKIA"}

// redacted replaces a secret in an argument.
const redacted = "[redacted]"

// forbiddenTools are the tools the client never calls.
var forbiddenTools = []string{"delete_repo"}

// interceptors are the client's interceptors: a mutator and two
// validators on the tools/call requests it sends.
func interceptors() []host.Interceptor {
	onCall := []string{"tools/call"}
	return []host.Interceptor{
		host.Mutator(host.Spec{Name: "redact-secrets", Events: onCall,
			Description: "replaces every word of a string argument that starts like a credential with " + redacted}, redactSecrets),
		host.Validator(host.Spec{Name: "no-secrets-out", Events: onCall,
			Description: "blocks a call whose arguments still hold a credential"}, noSecretsOut),
		host.Validator(host.Spec{Name: "forbidden-tools", Events: onCall,
			Description: "blocks calls of " + strings.Join(forbiddenTools, ", ")}, refuseForbidden),
	}
}

// call is a tools/call request payload: its method and params.
type call struct {
	Method string `json:"method"`
	Params struct {
		Meta      map[string]any `json:"_meta,omitempty"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments,omitempty"`
	} `json:"params"`
}

func decodeCall(inv *host.Invocation) (*call, error) {
	var c call
	if err := json.Unmarshal(inv.Payload, &c); err != nil {
		return nil, fmt.Errorf("the payload is not a tools/call request: %w", err)
	}
	return &c, nil
}

// isSecret reports whether word starts like a credential.
func isSecret(word string) bool {
	for _, p := range secretPrefixes {
		if strings.HasPrefix(word, p) && len(word) > len(p) {
			return true
		}
	}
	return false
}

// redact returns s with its secret words replaced, and whether there was
// one. Words are separated by white space.
func redact(s string) (string, bool) {
	words := strings.Fields(s)
	found := false
	for i, w := range words {
		if isSecret(w) {
			words[i], found = redacted, true
		}
	}
	if !found {
		return s, false
	}
	return strings.Join(words, " "), true
}

func redactSecrets(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
	c, err := decodeCall(inv)
	if err != nil {
		return host.Mutation{}, err
	}
	changed := false
	for k, v := range c.Params.Arguments {
		if s, ok := v.(string); ok {
			if r, found := redact(s); found {
				c.Params.Arguments[k], changed = r, true
			}
		}
	}
	if !changed {
		return host.Unchanged(), nil
	}
	b, err := json.Marshal(c)
	return host.Replace(b), err
}

func noSecretsOut(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
	c, err := decodeCall(inv)
	if err != nil {
		return host.Verdict{}, err
	}
	var found []wire.Message
	for k, v := range c.Params.Arguments {
		if s, ok := v.(string); ok {
			if _, secret := redact(s); secret {
				found = append(found, wire.Message{Path: "params.arguments." + k, Message: "holds a credential", Severity: wire.Error})
			}
		}
	}
	if len(found) == 0 {
		return host.Allow(), nil
	}
	return host.Verdict{Valid: false, Severity: wire.Error, Messages: found}, nil
}

func refuseForbidden(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
	c, err := decodeCall(inv)
	if err != nil {
		return host.Verdict{}, err
	}
	if slices.Contains(forbiddenTools, c.Params.Name) {
		return host.Deny(fmt.Sprintf("tool %q is forbidden", c.Params.Name)), nil
	}
	return host.Allow(), nil
}
