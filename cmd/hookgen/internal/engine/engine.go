package engine

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/analyze"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/gen"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/load"
)

// Options configures a run.
type Options struct {
	Dir      string   // where patterns are resolved; "" for the current directory
	Patterns []string // package patterns; none means "."
	Tags     []string // the user's build tags (hookgen adds its own)
	Env      []string // the go command's environment; nil for os.Environ()
	// Shuffle, when set, reorders each package's files before analysis; the
	// tests use it to prove the output does not depend on file order.
	Shuffle func([]*ast.File)
	// Extensions add their directives, analysis and code, in order.
	Extensions []ext.Extension
}

// Package is the outcome for one package.
type Package struct {
	Path string
	Dir  string
	File string // the generated file's path

	Model      *analyze.Package // nil when not analyzed or in error
	LoadErrors []load.Error
	// Errors reports directive errors: the package's file is left as it is.
	Errors bool

	Old       []byte // the file's current content
	OldExists bool
	OldOurs   bool   // the current file starts with hookgen's header
	New       []byte // the wanted content; nil when the file should not exist
}

// Stale reports whether the package's file differs from what it should be.
func (p *Package) Stale() bool {
	if p.Errors || len(p.LoadErrors) > 0 {
		return false
	}
	if p.New == nil {
		return p.OldExists && p.OldOurs
	}
	return !p.OldExists || !bytes.Equal(p.Old, p.New)
}

// Result is the outcome of a run.
type Result struct {
	Packages []*Package             // sorted by path
	Diags    []directive.Diagnostic // every package's, sorted by position
	Stats    Stats
}

// Stats holds the timings of a run.
type Stats struct {
	load.Stats
	Analyze, Render, Write time.Duration
	Generated              int // packages with directives
}

// HasErrors reports directive errors (not warnings).
func (r *Result) HasErrors() bool {
	for _, d := range r.Diags {
		if d.Severity == directive.Error {
			return true
		}
	}
	return false
}

// HasLoadErrors reports packages that failed to load or type-check.
func (r *Result) HasLoadErrors() bool {
	for _, p := range r.Packages {
		if len(p.LoadErrors) > 0 {
			return true
		}
	}
	return false
}

// Run loads, analyzes and renders. Its error is a failure of the go command
// (bad pattern, no module…); per-package problems are in the Result.
func Run(opts Options) (*Result, error) {
	pkgs, st, err := load.Load(load.Config{Dir: opts.Dir, Patterns: opts.Patterns, Tags: opts.Tags, Env: opts.Env})
	if err != nil {
		return nil, err
	}
	reg, err := ext.Registry(opts.Extensions)
	if err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	analyzers, renderers := ext.Analyzers(opts.Extensions), ext.Renderers(opts.Extensions)
	res := &Result{}
	res.Stats.Stats = *st
	for _, lp := range pkgs {
		p := &Package{Path: lp.PkgPath, Dir: lp.Dir, File: lp.GenPath(), LoadErrors: lp.Errors}
		res.Packages = append(res.Packages, p)
		if lp.Dir == "" {
			continue
		}
		if err := p.readOld(); err != nil {
			p.LoadErrors = append(p.LoadErrors, load.Error{Msg: err.Error()})
		}
		if len(p.LoadErrors) > 0 || lp.Pkg == nil {
			continue
		}
		t0 := time.Now()
		files := lp.Pkg.Syntax
		if opts.Shuffle != nil {
			files = slices.Clone(files)
			opts.Shuffle(files)
		}
		model, diags := analyze.Analyze(analyze.Input{Fset: lp.Pkg.Fset, Files: files, Types: lp.Pkg.Types, Info: lp.Pkg.TypesInfo}, reg, analyzers...)
		res.Stats.Analyze += time.Since(t0)
		res.Diags = append(res.Diags, diags...)
		if model == nil {
			p.Errors = true
			continue
		}
		if model.Empty() {
			continue
		}
		p.Model = model
		res.Stats.Generated++
		t1 := time.Now()
		src, err := gen.Render(model, renderers...)
		res.Stats.Render += time.Since(t1)
		if err != nil {
			p.LoadErrors = append(p.LoadErrors, load.Error{Msg: "internal error: rendering " + load.GenFile + ": " + err.Error()})
			continue
		}
		if p.OldExists && !p.OldOurs {
			res.Diags = append(res.Diags, directive.Diagnostic{
				Pos: token.Position{Filename: p.File, Line: 1, Column: 1},
				Msg: fmt.Sprintf("%s exists but was not written by hookgen (its first line is not %q): move it away", load.GenFile, gen.Header),
			})
			p.Errors = true
			continue
		}
		p.New = src
	}
	directive.SortDiagnostics(res.Diags)
	return res, nil
}

func (p *Package) readOld() error {
	b, err := os.ReadFile(p.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	p.Old, p.OldExists, p.OldOurs = b, true, gen.IsGenerated(b)
	return nil
}

// Change is what Write did to one file.
type Change struct {
	File    string
	Removed bool // else written
}

// Write brings every stale file up to date: it writes new content (through a
// temporary file renamed into place) and removes hookgen's files from
// packages that have no directive left. Packages with errors are left alone.
func (r *Result) Write() ([]Change, error) {
	t0 := time.Now()
	defer func() { r.Stats.Write = time.Since(t0) }()
	var changes []Change
	var errs []error
	for _, p := range r.Packages {
		if !p.Stale() {
			continue
		}
		if p.New == nil {
			if err := os.Remove(p.File); err != nil {
				errs = append(errs, err)
				continue
			}
			changes = append(changes, Change{File: p.File, Removed: true})
			continue
		}
		if err := writeFile(p.File, p.New); err != nil {
			errs = append(errs, err)
			continue
		}
		p.Old, p.OldExists, p.OldOurs = p.New, true, true
		changes = append(changes, Change{File: p.File})
	}
	return changes, errors.Join(errs...)
}

// writeFile replaces path's content atomically.
func writeFile(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dirOf(path), ".hookgen-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i]
	}
	return "."
}
