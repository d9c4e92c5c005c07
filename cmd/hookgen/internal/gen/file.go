package gen

// The seam for hookgen's extensions: a Renderer adds declarations to the
// generated file through a File.

import (
	"github.com/dave/jennifer/jen"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
)

// A Renderer renders an extension's part of hookgen_gen.go (package ext).
// Render calls Prepare on every Renderer, whether or not the package has a
// result of its extension, then Render on those that have one, in order,
// at their Place.
type Renderer interface {
	// Name names the extension; its result is Package.Ext[Name()].
	Name() string
	// Prepare declares the packages its code may import (File.Import)
	// and the package-level names its code refers to (File.Reserve).
	Prepare(f *File)
	// Render adds its declarations to f.
	Render(f *File)
	// Place says where in the file Render's declarations go.
	Place() Place
}

// Place is where an extension's declarations go in the generated file.
type Place uint8

// The places.
const (
	// AtEnd is after the core's declarations (and before the build
	// guard).
	AtEnd Place = iota
	// AfterRegister is right after RegisterHookflow, before the
	// functions of the package's plugin types.
	AfterRegister
)

// A File is what a Renderer sees of the generated file.
type File struct {
	g    *renderer
	name string
	// Package is the model the file is generated from.
	Package *analyze.Package
}

// Result returns the extension's analysis result (analyze.Pass.SetResult),
// or nil.
func (f *File) Result() any { return f.Package.Ext[f.name] }

// Import declares a package the extension's code may import: the file
// names it name unless that is taken, else an alias. Call it in Prepare.
func (f *File) Import(path, name string) { f.g.paths[path] = name }

// Reserve declares package-level identifiers of the package that the
// extension's code refers to, which no import may shadow. Call it in
// Prepare.
func (f *File) Reserve(names ...string) {
	for _, n := range names {
		f.g.local[n] = true
	}
}

// Jen returns the file to add declarations to.
func (f *File) Jen() *jen.File { return f.g.f }

// Qual refers to path.name, with the name Prepare chose for path.
func (f *File) Qual(path, name string) *jen.Statement { return f.g.qual(path, name) }

// Guard adds c to the file's build guard, which fails to compile when a
// function or method the code wires up is renamed, deleted or changes
// signature; key (e.g. the function's name) lists it once.
func (f *File) Guard(key string, c jen.Code) {
	f.g.extGuard = append(f.g.extGuard, guardEntry{key, c})
}

// Field renders "key: v", an element of a composite literal.
func Field(key string, v jen.Code) jen.Code { return field(key, v) }

// Optional renders "key: value" for each key, value pair of kv whose value
// is not "".
func Optional(kv ...string) []jen.Code { return optional(kv...) }

// Multi lays a list out one element a line between open and close.
func Multi(open, close string) jen.Options { return multi(open, close) }

type guardEntry struct {
	key  string
	code jen.Code
}
