package analyze

import (
	"fmt"
	"go/token"
	"go/types"
	"time"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// Import paths the generated code and the signature checks refer to.
const (
	PathFlows     = "github.com/hookflow/hookflow/flows"
	PathFramework = "github.com/hookflow/hookflow/framework"
	PathPriority  = "github.com/hookflow/hookflow/priority"
	PathScope     = "github.com/hookflow/hookflow/scope"
	PathStages    = "github.com/hookflow/hookflow/stages"
	PathMCP       = "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The names of the identifiers hookgen generates.
const (
	RegisterFunc = "RegisterHookflow"
	PluginSuffix = "Plugin"
)

// Package is what hookgen generates code from: the entities, external hook
// functions and plugins of one package, in generation order.
type Package struct {
	Path string // import path
	Name string // package name
	// RuntimePath is the package path reflect reports at run time, which
	// embedded hook IDs start with: "main" for a command.
	RuntimePath string
	Types       *types.Package

	Entities  []*Entity   // by kind (tools, resources, templates, prompts), then name
	Externals []*HookDecl // top-level hook functions, in source order
	Plugins   []*Plugin   // by name
	// Ext holds the results of hookgen's extensions (Pass.SetResult), by
	// extension name.
	Ext map[string]any
}

// Empty reports whether the package has nothing to generate.
func (p *Package) Empty() bool {
	return len(p.Entities) == 0 && len(p.Externals) == 0 && len(p.Plugins) == 0 && len(p.Ext) == 0
}

// Kind is an entity kind.
type Kind uint8

// The entity kinds, in generation order.
const (
	KindTool Kind = iota
	KindResource
	KindTemplate
	KindPrompt
)

// String returns the kind as messages name it, e.g. "resource template".
func (k Kind) String() string {
	return [...]string{"tool", "resource", "resource template", "prompt"}[k]
}

// EntityKind returns the flows package's kind of the entity.
func (k Kind) EntityKind() flows.EntityKind {
	return [...]flows.EntityKind{flows.EntityTool, flows.EntityResource, flows.EntityResource, flows.EntityPrompt}[k]
}

// Flow returns the flow the kind's embedded hooks run in: the flow table's
// flow that resolves such an entity.
func (k Kind) Flow() flows.ID {
	for _, f := range flows.All() {
		if f.Entity == k.EntityKind() {
			return f.ID
		}
	}
	panic(fmt.Sprintf("hookgen: the flow table has no flow for a %s", k))
}

// View returns the view the kind's embedded hooks take.
func (k Kind) View() View { return k.Flow().Info().View }

// Method returns the name of the method that does the entity's work.
func (k Kind) Method() string { return [...]string{"Execute", "Read", "Read", "Get"}[k] }

// Entity is a tool, resource, resource template or prompt type.
type Entity struct {
	Kind     Kind
	TypeName string
	// Pointer says the entity's type parameter is *T: a wired method has a
	// pointer receiver or the constructor returns *T.
	Pointer bool
	Pos     token.Position // the type's name

	Tool     directive.Tool             // KindTool; Description resolved
	Resource directive.Resource         // KindResource; Name and Description resolved
	Template directive.ResourceTemplate // KindTemplate; Name and Description resolved
	Prompt   directive.Prompt           // KindPrompt; Description resolved

	Ctor     string // the constructor's name, "" for none
	Complete bool   // the type has a Complete method (prompts and resources)
	In, Out  types.Type
	Hooks    []*HookDecl // embedded hooks, in source order
}

// Name returns the entity's registration key: a tool's or prompt's name, a
// resource's URI or a template's URI template.
func (e *Entity) Name() string {
	switch e.Kind {
	case KindTool:
		return e.Tool.Name
	case KindResource:
		return e.Resource.URI
	case KindTemplate:
		return e.Template.URITemplate
	}
	return e.Prompt.Name
}

// DisplayName returns the name that orders entities of one kind: the name
// for tools and prompts, the Name field for resources and templates.
func (e *Entity) DisplayName() string {
	switch e.Kind {
	case KindResource:
		return e.Resource.Name
	case KindTemplate:
		return e.Template.Name
	}
	return e.Name()
}

// View is how a hook function sees the flow: the parameter type it takes,
// as the flow table names it (flows.ViewContext for *flows.Context, and one
// flows.View<Type> constant per typed view).
type View = flows.ViewKind

// HookDecl is one //hook: directive on a method or function, with what
// the analysis found: its flow, view, name and positions.
type HookDecl struct {
	Stage    stages.Stage
	Flow     flows.ID
	Priority int
	Name     string // name= or the method or function name
	Func     string // the method or function name
	View     View
	ListOf   string         // for ViewList: the mcp result type name, e.g. "ListToolsResult"
	Pos      token.Position // the directive's "//"
	NamePos  token.Position // the name= value, else the directive's stage name
	FuncPos  token.Position // the method or function name

	// Timeout and OnFailure are timeout= and onfail= (flows.Hook's).
	Timeout   time.Duration
	OnFailure flows.FailurePolicy
}

// Plugin is an //mcp:plugin type.
type Plugin struct {
	Name     string
	TypeName string
	FuncName string // the generated constructor, <TypeName>Plugin
	Pos      token.Position
	Hooks    []*HookDecl // in source order
}
