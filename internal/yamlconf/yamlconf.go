// Package yamlconf decodes a YAML configuration file into Go values,
// collecting every error at its file:line:col: unknown keys with a "did you
// mean", values of the wrong kind, durations ("5s"), scalars of types
// that implement encoding.TextUnmarshaler, and the errors a value's
// Validate method reports, each at the node its flows.Error.Field names.
// It is the gateway's loader's machinery; the plugins it decodes the
// configurations of never import it, nor YAML.
//
// A struct field takes its key from its yaml tag; further tags say more:
// path:"relative" resolves a relative path against the file's directory;
// env:"token_env" lets the key token_env name an environment variable
// whose value sets the field instead (env:"secret_env,only" refuses the
// plain key: a secret does not belong in the file); deprecated:"what
// instead" keeps a key working but records a warning at it
// ([Decoder.Warnings]); a blank field
// (_ struct{}) tagged yaml:"key" removed:"why" refuses a key that is gone,
// saying why. A [Hook] decodes the values of one type itself.
//
// The input is bounded: a file over [MaxFileBytes] is refused unread,
// aliases that expand the document past [MaxExpanded] values stop the
// decoding with an error at the alias, and after [MaxErrors] errors the
// rest of the file is not checked.
package yamlconf

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
)

// The bounds of what a file may make the decoder do.
const (
	// MaxFileBytes is the size of the largest file [ReadFile] reads and
	// [Decoder.Document] decodes: a configuration written by hand is a
	// small fraction of it.
	MaxFileBytes = 1 << 20
	// MaxExpanded bounds the values decoded through aliases, over the
	// whole file: an alias bomb (aliases of aliases of lists) is
	// refused at the alias that crosses it, not expanded.
	MaxExpanded = 100_000
	// MaxErrors bounds the errors reported of one file.
	MaxErrors = 100
)

// Error is a configuration error at File:Line:Col, at File:Line when the
// column is unknown (0), or at File alone when the line is (an empty
// file).
type Error struct {
	File      string
	Line, Col int
	Msg       string

	// path is the value the error is about, in the file's spelling
	// ("upstreams[0].url"): an error of a later phase about the same
	// value, or one that holds it or that it holds, is not reported.
	path string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// SyntaxError returns the YAML syntax error err of file at the position
// the parser reports: where it found the problem (an unclosed bracket is
// found where the input ends), with, when it began elsewhere, what the
// parser was reading and where.
func SyntaxError(file string, err error) error {
	var le *yaml.LoadError
	if !errors.As(err, &le) || le.Mark.Line == 0 {
		return fmt.Errorf("%s: %v", file, err)
	}
	msg := "YAML syntax: " + le.Message
	if at := le.ContextMark; le.ContextMsg != "" && at.Line > 0 && at != le.Mark {
		msg += fmt.Sprintf(" (%s at %d:%d)", le.ContextMsg, at.Line, at.Column)
	}
	return &Error{File: file, Line: le.Mark.Line, Col: le.Mark.Column, Msg: msg}
}

// DidYouMean returns ` (did you mean "x"?)` when word is a near miss of
// one of names, and "" otherwise.
func DidYouMean(word string, names []string) string {
	if s, ok := suggest.Closest(word, names); ok {
		return ` (did you mean "` + s + `"?)`
	}
	return ""
}

// ReadFile reads the configuration file at path, refusing one over
// [MaxFileBytes] without reading the rest of it.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, tooBig(path)
	}
	return data, nil
}

func tooBig(file string) error {
	return fmt.Errorf("%s: the file is over %d KiB, more than a configuration file needs: is it the right file?", file, MaxFileBytes>>10)
}

// Decoder decodes the nodes of one file, collecting every error with its
// position.
type Decoder struct {
	// File is the file's name, in errors and for the paths relative to
	// it.
	File string
	// Getenv reads the environment variables that env-tagged keys name;
	// nil is os.Getenv.
	Getenv func(string) string
	// Host, when set, also checks what the settings name on this
	// machine, without starting or writing anything: programs,
	// directories, files to append to.
	Host bool
	// Hooks decode the values of their types in place of the
	// reflection walk.
	Hooks []Hook

	errs []*Error
	// warns are what the file gives that works but will not.
	warns []*Error
	// nodes are where each value is, by its path in the file.
	nodes map[string]*yaml.Node
	// aliasDepth is how many aliases the walk is inside; expanded how
	// many values it decoded there.
	aliasDepth, expanded int
	stopped              bool
}

// Validator is a configuration that checks itself: nil, or the
// errors.Join of *flows.Error values whose Field is the path of the
// field they are about, in the file's spelling ("tokens[0].user").
type Validator interface{ Validate() error }

// HostChecker is a configuration that can check what its settings name on
// this machine (programs, directories, files), without starting or
// writing anything; its errors are a Validator's. It runs when the
// Decoder's Host is set, after Validate.
type HostChecker interface{ CheckHost() error }

// Hook decodes the values of one type itself: see [HookFor].
type Hook struct {
	t  reflect.Type
	fn func(*Decoder, *yaml.Node, string, reflect.Value)
}

// HookFor returns the Hook that decodes every value of type T of the
// file: fn decodes n, the value at path, into v, recording its errors
// with [Decoder.Errorf] and decoding what it holds with [Decoder.Value],
// [Decoder.Entries] and [Decoder.Section].
func HookFor[T any](fn func(d *Decoder, n *yaml.Node, path string, v *T)) Hook {
	return Hook{t: reflect.TypeFor[T](), fn: func(d *Decoder, n *yaml.Node, path string, v reflect.Value) {
		fn(d, n, path, v.Addr().Interface().(*T))
	}}
}

// Errorf records an error at n, the value at path.
func (d *Decoder) Errorf(n *yaml.Node, path, format string, args ...any) {
	if d.stopped {
		return
	}
	if len(d.errs) == MaxErrors {
		d.stopped = true
		format, args = "over %d errors: the rest of the file is not checked", []any{MaxErrors}
	}
	d.errs = append(d.errs, &Error{File: d.File, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...), path: path})
}

// Warnf records a warning at n, the value at path: what the file gives
// still works, but will not (a deprecated key). A warning is not an
// error: [Decoder.Err] leaves it out.
func (d *Decoder) Warnf(n *yaml.Node, path, format string, args ...any) {
	if len(d.warns) < MaxErrors {
		d.warns = append(d.warns, &Error{File: d.File, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...), path: path})
	}
}

// Warnings returns the recorded warnings, each an *Error at its
// file:line:col, in the order of the file; at most [MaxErrors] of them.
func (d *Decoder) Warnings() []error {
	slices.SortStableFunc(d.warns, byPosition)
	var out []error
	for _, w := range d.warns {
		out = append(out, w)
	}
	return out
}

// byPosition orders errors as an editor lists them.
func byPosition(a, b *Error) int {
	return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// Err returns the recorded errors joined, in the order of the file as an
// editor lists them, or nil.
func (d *Decoder) Err() error {
	slices.SortStableFunc(d.errs, byPosition)
	var errs []error
	for _, e := range d.errs {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// Document decodes data, the whole file, into v (a pointer), what naming
// its top in errors, then reports what v's Validate returns, then (with
// Host) its CheckHost, each error at the node its Field names. Unlike a
// [Decoder.Section], every error of the file is reported at once: one is
// left out only when an error of an earlier phase (decoding, then
// Validate) is about the same value, or one that holds it or that it
// holds, so that a mistake is not reported again as what it caused.
func (d *Decoder) Document(data []byte, what string, v any) error {
	if len(data) > MaxFileBytes {
		return tooBig(d.File)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return SyntaxError(d.File, err)
	}
	root := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"} // an empty file, at no line
	if len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	d.value(root, what, "", reflect.ValueOf(v).Elem())
	d.check(root, "", "", v, 0, true)
	return d.Err()
}

// Section decodes n, a plugin's section named name at path, into v (a
// pointer to its configuration), then reports what v's Validate returns
// and (with Host) its CheckHost, each error at the node its Field names
// (the section's when it names none found), as "<name> <field>: <msg>".
// Validate runs only when the section decoded without error, CheckHost
// only when Validate found nothing: the plugin checks its whole section
// at once. It reports whether the section had no error.
func (d *Decoder) Section(n *yaml.Node, path, name string, v any) bool {
	start := len(d.errs)
	d.value(n, name, path, reflect.ValueOf(v).Elem())
	d.check(n, path, name, v, start, false)
	return len(d.errs) == start
}

// Value decodes n, the value at path, into v (a pointer), as a field of
// v's type is decoded, and reports whether it added no error.
func (d *Decoder) Value(n *yaml.Node, path string, v any) bool {
	start := len(d.errs)
	d.value(n, lastKey(path), path, reflect.ValueOf(v).Elem())
	return len(d.errs) == start
}

// Entries calls set for each key of n, the mapping at path that what
// names in errors: a key not among names, or one given twice, is an
// error, with a hint for a near miss. A null n (a key without a value) is
// an empty mapping.
func (d *Decoder) Entries(n *yaml.Node, path, what string, names []string, set func(k, v *yaml.Node)) {
	d.mapping(n, what, path, slices.Sorted(slices.Values(names)), func(k string) bool { return slices.Contains(names, k) }, set)
}

// check runs v's Validate and CheckHost for the value n at path, whose
// decoding recorded the errors from start on. fine reports every error
// not about a value an earlier phase's error is about; otherwise a phase
// runs only when the phases before it found nothing.
func (d *Decoder) check(n *yaml.Node, path, name string, v any, start int, fine bool) {
	if val, ok := v.(Validator); ok && (fine || len(d.errs) == start) {
		d.report(n, path, name, val.Validate(), len(d.errs), fine)
	}
	if hc, ok := v.(HostChecker); ok && d.Host && (fine || len(d.errs) == start) {
		d.report(n, path, name, hc.CheckHost(), len(d.errs), fine)
	}
}

// report records the errors err joins, each at the node its Field names
// under base (n's when it names none found), rendered for the section
// name ("" for none). With fine, an error about a value that one of the
// first before errors is about is left out.
func (d *Decoder) report(n *yaml.Node, base, name string, err error, before int, fine bool) {
	for _, err := range leaves(err) {
		var fe *flows.Error
		field := ""
		if errors.As(err, &fe) {
			field = fe.Field
		}
		path := Join(base, field)
		if fine && d.related(path, before) {
			continue
		}
		at := n
		for p := path; p != base && p != ""; p = parent(p) {
			if node, ok := d.nodes[p]; ok {
				at = node
				break
			}
		}
		d.Errorf(at, path, "%s", message(name, err))
	}
}

// related reports whether one of the first before errors is about the
// value at path, one that holds it or one that it holds.
func (d *Decoder) related(path string, before int) bool {
	for _, e := range d.errs[:before] {
		if within(e.path, path) || within(path, e.path) {
			return true
		}
	}
	return false
}

// within reports whether the value at q is the one at p or held by it.
func within(q, p string) bool {
	return p == "" || q == p || strings.HasPrefix(q, p+".") || strings.HasPrefix(q, p+"[")
}

// leaves returns the errors err joins, recursively; err alone if it joins
// none.
func leaves(err error) []error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, leaves(e)...)
	}
	return out
}

// Join returns the path of key under path: "upstreams[0].url"; an index
// ("[1]") is joined without a dot.
func Join(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	case key[0] == '[':
		return path + key
	}
	return path + "." + key
}

// parent returns the path of the field that holds the one at path:
// "tokens[0]" for "tokens[0].user", "tokens" for "tokens[0]", "" at the
// top.
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// lastKey returns the last key of path, what names its value in errors.
func lastKey(path string) string {
	return path[strings.LastIndex(path, ".")+1:]
}

// message renders a Validate error of the section name for the file:
// "<section> <field>: <message>", without the "hookflow: invalid: " the
// error's own text starts with, which a position says better; with no
// section, the message alone.
func message(name string, err error) string {
	var fe *flows.Error
	if !errors.As(err, &fe) || fe.Code != flows.CodeInvalid {
		if name == "" {
			return err.Error()
		}
		return name + ": " + err.Error()
	}
	var parts []string
	if fe.Msg != "" {
		parts = append(parts, fe.Msg)
	}
	if fe.Err != nil {
		parts = append(parts, flows.Reason(fe.Err))
	}
	if name == "" {
		return strings.Join(parts, ": ")
	}
	subject := name
	if fe.Field != "" {
		subject += " " + fe.Field
	}
	return subject + ": " + strings.Join(parts, ": ")
}
