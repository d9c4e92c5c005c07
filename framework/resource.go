package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// Resource defines a resource (Resource set) or a resource template
// (Template set) whose behaviour lives in a Go type T. hookgen generates
// these from //mcp:resource and //mcp:resource-template types.
type Resource[T any] struct {
	// Exactly one of Resource and Template is set.
	Resource *mcp.Resource
	Template *mcp.ResourceTemplate
	// New builds the instance (see [Tool.New]).
	New any
	// Read reads the resource; hookgen uses the type's Read method.
	Read func(T, context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error)
	// Complete, when set, answers completion requests for the template's
	// variables.
	Complete func(T, context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	// Hooks are the type's embedded hooks on resources:read-resource.
	Hooks []EntityHook[T, flows.ResourceRead]
}

// AddResource adds a resource or resource template to r.
func AddResource[T any](r Registrar, def Resource[T]) error {
	if (def.Resource == nil) == (def.Template == nil) {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ResourcesReadResource, Msg: "AddResource: set exactly one of Resource and Template"}
	}
	if def.Read == nil {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ResourcesReadResource, Msg: fmt.Sprintf("resource %q: nil Read", def.key())}
	}
	_, sc := r.target()
	return add(r, "resource "+def.key(), &resourceDef[T]{entityBase: entityBase[T]{flow: flows.ResourcesReadResource, scope: sc}, def: def})
}

// AddResourceFunc adds a resource (or template) read by a plain function.
func AddResourceFunc(r Registrar, res *mcp.Resource, tmpl *mcp.ResourceTemplate, read func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error)) error {
	return AddResource(r, Resource[funcResource]{Resource: res, Template: tmpl,
		Read: func(_ funcResource, ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return read(ctx, req)
		}})
}

type funcResource struct{}

func (d Resource[T]) key() string {
	if d.Resource != nil {
		return d.Resource.URI
	}
	if d.Template != nil {
		return d.Template.URITemplate
	}
	return ""
}

type resourceDef[T any] struct {
	entityBase[T]
	def Resource[T]
}

func (d *resourceDef[T]) register(s *Server) error {
	key := d.def.key()
	if _, dup := s.index.Load().resources[key]; dup && !s.started {
		return &flows.Error{Code: flows.CodeDuplicate, Flow: flows.ResourcesReadResource, Msg: fmt.Sprintf("resource %q is added twice", key)}
	}
	var res *mcp.Resource
	var tmpl *mcp.ResourceTemplate
	if d.def.Resource != nil {
		r := *d.def.Resource
		res = &r
	} else {
		t := *d.def.Template
		tmpl = &t
	}
	if err := setupEntity(&d.entityBase, s, key, d.def.New, reflect.TypeFor[funcResource](), d.def.Hooks, func(e *flows.Entity) { e.Resource, e.Template = res, tmpl }); err != nil {
		return err
	}
	entry := newCompletable(&d.entityBase, d.def.Complete)
	s.update(func(ix *entityIndex) { ix.resources[key] = entry })
	if res != nil {
		s.sdk.AddResource(res, d.handle)
	} else {
		s.sdk.AddResourceTemplate(tmpl, d.handle)
	}
	entry.served.Store(true)
	return nil
}

func (d *resourceDef[T]) handle(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return runEntity[T, *mcp.ReadResourceResult](ctx, &d.entityBase, "resources/read", req, req.Params, d)
}

// Validate has nothing to check: the SDK matched the URI.
func (d *resourceDef[T]) Validate(c *flows.Context) (any, json.RawMessage, error) {
	return c.Input(), nil, nil
}

// Execute reads the resource, with the parameters as hooks left them.
func (d *resourceDef[T]) Execute(c *flows.Context) (any, error) {
	req, _ := c.Request().SDK.(*mcp.ReadResourceRequest)
	if p, ok := c.Input().(*mcp.ReadResourceParams); ok && p != nil && req != nil && p != req.Params {
		r := *req
		r.Params = p
		req = &r
	}
	return d.def.Read(c.Entity().Value.(T), c.Context(), req)
}
