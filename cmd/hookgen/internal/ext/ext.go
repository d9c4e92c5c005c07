// Package ext is hookgen's extension seam: the directives of a plugin, with
// their analysis, rendering and -explain positions, live in one package
// behind [Extension] (cmd/hookgen/internal/ext/<plugin>) instead of inside
// the generator's directive, analyze, gen and explain packages. hookgen's
// main lists its extensions; the generator calls each at its step.
package ext

import (
	"go/ast"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/explain"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/gen"
	"github.com/hookflow/hookflow/flows"
)

// An Extension adds directives to hookgen: it defines them (Directives),
// checks them and records what they declare (analyze.Analyzer), renders
// the code they generate (gen.Renderer), and says where they act in a
// flow's plan (explain.Positioner). Embed [Base] for the steps it does not
// need.
type Extension interface {
	// Name names the extension, e.g. "interceptor"; it is unique among a
	// hookgen's extensions.
	Name() string
	// Directives returns the definitions of its directives, in -list
	// order; hookgen -list shows them after the core's.
	Directives() []directive.Def
	analyze.Analyzer
	gen.Renderer
	explain.Positioner
}

// Base is the no-op part of an Extension: no directives, nothing to
// analyze, render or explain. An extension embeds it and overrides what it
// does.
type Base struct{}

// Directives returns no definition.
func (Base) Directives() []directive.Def { return nil }

// Owns reports false.
func (Base) Owns(directive.Value) bool { return false }

// Func returns others.
func (Base) Func(_ *analyze.Pass, _ *ast.FuncDecl, _, others []*directive.Decoded) []*directive.Decoded {
	return others
}

// Type does nothing.
func (Base) Type(*analyze.Pass, *directive.Decoded, analyze.Site) {}

// Finish does nothing.
func (Base) Finish(*analyze.Pass) {}

// Prepare does nothing.
func (Base) Prepare(*gen.File) {}

// Render does nothing.
func (Base) Render(*gen.File) {}

// Place returns gen.AtEnd.
func (Base) Place() gen.Place { return gen.AtEnd }

// Positions returns none.
func (Base) Positions(flows.ID) []explain.Position { return nil }

// Registry returns the directive registry of hookflow's core directives
// and those of exts, in order.
func Registry(exts []Extension) (*directive.Registry, error) {
	var defs []directive.Def
	for _, x := range exts {
		defs = append(defs, x.Directives()...)
	}
	return directive.New(defs...)
}

// Analyzers returns exts as analyze.Analyzers.
func Analyzers(exts []Extension) []analyze.Analyzer {
	out := make([]analyze.Analyzer, len(exts))
	for i, x := range exts {
		out[i] = x
	}
	return out
}

// Renderers returns exts as gen.Renderers.
func Renderers(exts []Extension) []gen.Renderer {
	out := make([]gen.Renderer, len(exts))
	for i, x := range exts {
		out[i] = x
	}
	return out
}

// Positioners returns exts as explain.Positioners.
func Positioners(exts []Extension) []explain.Positioner {
	out := make([]explain.Positioner, len(exts))
	for i, x := range exts {
		out[i] = x
	}
	return out
}
