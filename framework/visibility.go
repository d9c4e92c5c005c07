package framework

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// Visibility is implemented by a plugin that hides entities from some
// callers. For each tool, prompt, resource or resource template it covers,
// Visible says how the caller of r sees it (a [Sight]): shown; unlisted,
// left out of lists but callable, so that the call's hooks can refuse it
// with a reason; or hidden, left out of lists and unknown to calls, gets
// and reads, which fail as for a name the server does not know, with no
// flow run. Lists are filtered before they are paginated.
//
// A plugin decides only for the entities it covers: one attached to the
// server, for every entity; one attached to an app, for that app's only.
// When several plugins cover an entity, the strictest answer wins.
//
// Visible runs on the request path, once per entity listed and once per
// call, with the request's information; it must be fast, must not block,
// and must be safe for concurrent use. e.Kind says what e is, e.Tool,
// e.Prompt, e.Resource or e.Template describes it, and e.Scopes holds a
// tool's required scopes. While any Visibility plugin is attached, list
// results are marked cacheScope "private".
type Visibility interface {
	Visible(r *flows.Request, e *flows.Entity) Sight
}

// Sight is how a caller sees an entity (see [Visibility]). The zero value
// is Shown; a larger value is stricter.
type Sight uint8

// The sights.
const (
	// Shown: listed and usable.
	Shown Sight = iota
	// Unlisted: left out of lists; calls, gets and reads run their flow.
	Unlisted
	// Hidden: left out of lists; calls, gets and reads fail as for an
	// unknown name.
	Hidden
)

// visibility is the list of Visibility plugins that cover one entity.
type visibility []Visibility

// sight returns how the caller of r sees the entity: the strictest answer
// of the plugins that cover it.
func (v visibility) sight(r *flows.Request, e *flows.Entity) Sight {
	out := Shown
	for _, p := range v {
		if s := p.Visible(r, e); s > out {
			out = s
		}
	}
	return out
}

// visibilityFor returns the Visibility plugins that cover entities of sc.
// Callers hold s.mu (plugins are attached before any entity registers).
func (s *Server) visibilityFor(sc *scope.Scope) visibility {
	var v visibility
	for _, p := range s.plugins {
		if vp, ok := p.plugin.(Visibility); ok && p.ctx.Scope.Covers(sc) {
			v = append(v, vp)
		}
	}
	return v
}

// hidesAny reports whether a Visibility plugin is attached anywhere: then
// what a list holds depends on the caller. Start calls it once, when every
// plugin has attached; requests read the answer from s.hides. Callers hold
// s.mu.
func (s *Server) hidesAny() bool {
	for _, p := range s.plugins {
		if _, ok := p.plugin.(Visibility); ok {
			return true
		}
	}
	return false
}

// sdkPageSize is the page size hookflow gives the SDK, so that the SDK's
// list handlers return whole lists: hookflow filters them by visibility and
// then paginates them itself with [Options.PageSize].
const sdkPageSize = math.MaxInt32

// pageSize returns the list page size clients get: Options.PageSize, else
// the page size of Options.SDK, else the SDK's default, as before hookflow
// paged lists itself.
func (s *Server) pageSize() int {
	switch {
	case s.opts.PageSize > 0:
		return s.opts.PageSize
	case s.opts.SDK != nil && s.opts.SDK.PageSize > 0:
		return s.opts.SDK.PageSize
	}
	return mcp.DefaultPageSize
}

// lister is what a list flow's execute step needs to know of one list
// method: where the cursor, the items and the next cursor are, and how to
// look an item's entity up. P and R are the SDK's params and result
// structs, T the listed item type.
type lister[P, R, T any] struct {
	cursor func(*P) *string
	items  func(*R) *[]T
	next   func(*R) *string
	// key is the item's unique key, the SDK's sort order (name or URI).
	key func(T) string
	// entity returns the item's entity and the plugins that decide its
	// visibility; nil when hookflow does not know it.
	entity func(ix *entityIndex, key string) (*flows.Entity, visibility)
	// cache is the result's cache-control fields.
	cache func(*R) *mcp.Cacheable
}

// The list methods hookflow runs as flows.
var (
	toolsList = lister[mcp.ListToolsParams, mcp.ListToolsResult, *mcp.Tool]{
		cursor: func(p *mcp.ListToolsParams) *string { return &p.Cursor },
		items:  func(r *mcp.ListToolsResult) *[]*mcp.Tool { return &r.Tools },
		next:   func(r *mcp.ListToolsResult) *string { return &r.NextCursor },
		cache:  func(r *mcp.ListToolsResult) *mcp.Cacheable { return &r.Cacheable },
		key:    func(t *mcp.Tool) string { return t.Name },
		entity: func(ix *entityIndex, k string) (*flows.Entity, visibility) {
			if e := ix.tools[k]; e != nil {
				return e.entity, e.vis
			}
			return nil, nil
		},
	}
	promptsList = lister[mcp.ListPromptsParams, mcp.ListPromptsResult, *mcp.Prompt]{
		cursor: func(p *mcp.ListPromptsParams) *string { return &p.Cursor },
		items:  func(r *mcp.ListPromptsResult) *[]*mcp.Prompt { return &r.Prompts },
		next:   func(r *mcp.ListPromptsResult) *string { return &r.NextCursor },
		cache:  func(r *mcp.ListPromptsResult) *mcp.Cacheable { return &r.Cacheable },
		key:    func(p *mcp.Prompt) string { return p.Name },
		entity: func(ix *entityIndex, k string) (*flows.Entity, visibility) {
			if e := ix.prompts[k]; e != nil {
				return e.entity, e.vis
			}
			return nil, nil
		},
	}
	resourcesList = lister[mcp.ListResourcesParams, mcp.ListResourcesResult, *mcp.Resource]{
		cursor: func(p *mcp.ListResourcesParams) *string { return &p.Cursor },
		items:  func(r *mcp.ListResourcesResult) *[]*mcp.Resource { return &r.Resources },
		next:   func(r *mcp.ListResourcesResult) *string { return &r.NextCursor },
		cache:  func(r *mcp.ListResourcesResult) *mcp.Cacheable { return &r.Cacheable },
		key:    func(x *mcp.Resource) string { return x.URI },
		entity: resourceEntity,
	}
	templatesList = lister[mcp.ListResourceTemplatesParams, mcp.ListResourceTemplatesResult, *mcp.ResourceTemplate]{
		cursor: func(p *mcp.ListResourceTemplatesParams) *string { return &p.Cursor },
		items:  func(r *mcp.ListResourceTemplatesResult) *[]*mcp.ResourceTemplate { return &r.ResourceTemplates },
		next:   func(r *mcp.ListResourceTemplatesResult) *string { return &r.NextCursor },
		cache:  func(r *mcp.ListResourceTemplatesResult) *mcp.Cacheable { return &r.Cacheable },
		key:    func(x *mcp.ResourceTemplate) string { return x.URITemplate },
		entity: resourceEntity,
	}
)

func resourceEntity(ix *entityIndex, k string) (*flows.Entity, visibility) {
	if e := ix.resources[k]; e != nil {
		return e.entity, e.vis
	}
	return nil, nil
}

// Validate keeps the list parameters as they are.
func (lister[P, R, T]) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}

// Execute asks the SDK's handler (next, through the run's request) for the
// whole list, keeps what the caller may see, and returns the page after
// the client's cursor. Items are keyed and sorted as the SDK sorts them;
// a cursor is the last key of the page before, so nothing hidden can leak
// through one.
func (l lister[P, R, T]) execute(s *Server, next mcp.MethodHandler, c *flows.Context) (any, error) {
	r := c.Request()
	var params *P
	if r.SDK != nil {
		params, _ = any(r.SDK.GetParams()).(*P)
	}
	after := ""
	if params != nil && *l.cursor(params) != "" {
		cursor := *l.cursor(params)
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) == 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
		}
		after = string(b)
		// The SDK is asked for the whole list: hookflow's cursor is not
		// the SDK's. The request is this run's own; put it back after.
		*l.cursor(params) = ""
		defer func() { *l.cursor(params) = cursor }()
	}
	out, err := next(c.Context(), r.Method, r.SDK)
	if err != nil {
		return nil, err
	}
	res, _ := any(out).(*R)
	if res == nil {
		return out, nil
	}
	ix := s.index.Load()
	keep := func(it T) bool {
		e, vis := l.entity(ix, l.key(it))
		return e == nil || vis.sight(r, e) == Shown
	}
	*l.items(res), *l.next(res) = paginate(*l.items(res), l.key, keep, after, s.pageSize())
	if s.hides.Load() {
		// The page depends on who asked: no cache may serve it to another.
		l.cache(res).CacheScope = "private"
	}
	return out, nil
}

// listSteps is a list flow's steps: l's, with the server and the SDK's
// handler.
type listSteps[P, R, T any] struct {
	lister[P, R, T]
	srv  *Server
	next mcp.MethodHandler
}

func (l listSteps[P, R, T]) Execute(c *flows.Context) (any, error) {
	return l.execute(l.srv, l.next, c)
}

// paginate keeps the items of items (sorted by key) that come after the
// key after and that keep says to keep, at most size of them, and returns
// them with the cursor of the next page ("" for the last page).
func paginate[T any](items []T, key func(T) string, keep func(T) bool, after string, size int) ([]T, string) {
	var out []T
	for _, it := range items {
		if after != "" && key(it) <= after {
			continue
		}
		if !keep(it) {
			continue
		}
		if len(out) == size {
			return out, base64.RawURLEncoding.EncodeToString([]byte(key(out[len(out)-1])))
		}
		out = append(out, it)
	}
	if out == nil {
		out = []T{} // a list is never JSON null
	}
	return out, ""
}

// hidden returns the error a call of an entity hidden from its caller
// gets: the one the SDK gives for a name it does not know.
func hidden(e *flows.Entity) error {
	switch e.Kind {
	case flows.EntityTool:
		return unknownTool(e.Name)
	case flows.EntityPrompt:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", e.Name)}
	}
	return mcp.ResourceNotFoundError(e.Name)
}
