package policy

import (
	"encoding/json"

	"github.com/google/cel-go/interpreter"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// Principal is who the caller is, as a rule reads it: the variable
// principal, e.g. `principal.user == "ann"`. The token's claims are the
// variable claims.
type Principal struct {
	// User is the token's user ID (flows.Request.Principal); "" without a
	// token.
	User string `cel:"user"`
	// Authenticated is whether the request carried a verified token.
	Authenticated bool `cel:"authenticated"`
	// ClientID is the OAuth client the token was issued to; "" when the
	// verifier did not say.
	ClientID string `cel:"client_id"`
	// Scopes are the token's scopes.
	Scopes []string `cel:"scopes"`
}

// Client is the MCP client of the call, as a rule reads it: the variable
// client, e.g. `client.name == "claude-code"`.
type Client struct {
	// Name and Version are what the client said of itself at initialize
	// (clientInfo); "" when it did not.
	Name    string `cel:"name"`
	Version string `cel:"version"`
	// Session is the transport's session ID; "" for stdio and stateless
	// requests.
	Session string `cel:"session"`
	// Protocol is the session's protocol version, such as "2025-11-25".
	Protocol string `cel:"protocol"`
}

// Entity is the tool, prompt, resource or resource template a rule is
// asked about: the variable entity, e.g. `entity.upstream == "ledger"`.
type Entity struct {
	// Kind is "tool", "prompt", "resource" or "template".
	Kind string `cel:"kind"`
	// Name is the entity's name as clients see it (a gateway prefix
	// included), or a resource's URI or a template's URI template.
	Name string `cel:"name"`
	// Upstream is the name of the gateway upstream the entity comes from;
	// "" for the server's own entities.
	Upstream string `cel:"upstream"`
	// Title and Description are as the entity declares them.
	Title       string `cel:"title"`
	Description string `cel:"description"`
	// Annotations are a tool's hints with the protocol's defaults filled
	// in: readOnlyHint, destructiveHint, idempotentHint and openWorldHint
	// (bools); empty for other kinds.
	Annotations map[string]bool `cel:"annotations"`
	// Scopes are the OAuth scopes the tool declares (framework.Tool.Scopes).
	Scopes []string `cel:"scopes"`
}

// upstreamNamer is what a gateway's mounted entity (e.Value) tells of
// where it comes from.
type upstreamNamer interface{ UpstreamName() string }

// entityOf returns how rules see e.
func entityOf(e *flows.Entity) *Entity {
	out := &Entity{Name: e.Name, Scopes: e.Scopes}
	if u, ok := e.Value.(upstreamNamer); ok {
		out.Upstream = u.UpstreamName()
	}
	switch {
	case e.Tool != nil:
		out.Kind, out.Title, out.Description = "tool", e.Tool.Title, e.Tool.Description
		out.Annotations = annotations(e.Tool.Annotations)
		if out.Title == "" && e.Tool.Annotations != nil {
			out.Title = e.Tool.Annotations.Title
		}
	case e.Prompt != nil:
		out.Kind, out.Title, out.Description = "prompt", e.Prompt.Title, e.Prompt.Description
	case e.Resource != nil:
		out.Kind, out.Title, out.Description = "resource", e.Resource.Title, e.Resource.Description
	case e.Template != nil:
		out.Kind, out.Title, out.Description = "template", e.Template.Title, e.Template.Description
	default:
		out.Kind = kindName(e.Kind)
	}
	if out.Annotations == nil {
		out.Annotations = map[string]bool{}
	}
	return out
}

// kindName names an entity kind for an entity that carries no
// description.
func kindName(k flows.EntityKind) string {
	switch k {
	case flows.EntityTool:
		return "tool"
	case flows.EntityPrompt:
		return "prompt"
	}
	return "resource"
}

// annotations returns a tool's hints, with the defaults the protocol
// gives those left out (destructive and open-world true).
func annotations(a *mcp.ToolAnnotations) map[string]bool {
	m := map[string]bool{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}
	if a == nil {
		return m
	}
	m["readOnlyHint"] = a.ReadOnlyHint
	m["idempotentHint"] = a.IdempotentHint
	if a.DestructiveHint != nil {
		m["destructiveHint"] = *a.DestructiveHint
	}
	if a.OpenWorldHint != nil {
		m["openWorldHint"] = *a.OpenWorldHint
	}
	return m
}

// principalOf returns how rules see the caller of r.
func principalOf(r *flows.Request) *Principal {
	p := &Principal{User: r.Principal(), ClientID: r.ClientID()}
	if ti := r.TokenInfo; ti != nil {
		p.Authenticated, p.Scopes = true, ti.Scopes
	}
	if p.Scopes == nil {
		p.Scopes = []string{}
	}
	return p
}

// claimsOf returns the claims of r's token (flows.Request.Claims), an
// empty map without them.
func claimsOf(r *flows.Request) map[string]any {
	if c := r.Claims(); c != nil {
		return c
	}
	return map[string]any{}
}

// clientOf returns how rules see the client of r.
func clientOf(r *flows.Request) *Client {
	c := &Client{Session: r.SessionID, Protocol: r.ProtocolVersion}
	if ci := r.ClientInfo; ci != nil {
		c.Name, c.Version = ci.Name, ci.Version
	}
	return c
}

// argumentsOf decodes a call's arguments for rules: a JSON object, or an
// empty map for none.
func argumentsOf(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	return args, nil
}

// vars is the activation a rule runs with. Its variables are built once
// per request and read by every rule of it; args only for rules that
// read them.
type vars struct {
	principal *Principal
	claims    map[string]any
	client    *Client
	entity    *Entity
	args      map[string]any
}

// The names of the variables.
const (
	varPrincipal = "principal"
	varClaims    = "claims"
	varClient    = "client"
	varEntity    = "entity"
	varArgs      = "args"
)

// ResolveName returns the variable called name.
func (v *vars) ResolveName(name string) (any, bool) {
	switch name {
	case varPrincipal:
		return v.principal, true
	case varClaims:
		return v.claims, true
	case varClient:
		return v.client, true
	case varEntity:
		return v.entity, true
	case varArgs:
		if v.args == nil {
			return map[string]any{}, true
		}
		return v.args, true
	}
	return nil, false
}

// Parent returns nil: the activation has no parent.
func (v *vars) Parent() interpreter.Activation { return nil }
