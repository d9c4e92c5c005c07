// Package yamlconf decodes a YAML configuration file into Go values,
// collecting every error at its file:line:col: unknown keys with a "did you
// mean", values of the wrong kind, durations ("5s"), scalars of types
// that implement encoding.TextUnmarshaler, and the errors a value's
// Validate method reports, each at the node its flows.Error.Field names.
// It is the gateway's loader's machinery; the plugins it decodes the
// configurations of never import it, nor YAML.
package yamlconf

import (
	"cmp"
	"encoding"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
)

// Error is a configuration error at File:Line:Col, or at File:Line when
// the column is unknown (0).
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Col == 0 {
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

// Decoder decodes the nodes of one file, collecting every error with its
// position.
type Decoder struct {
	// File is the file's name, in errors and for the paths relative to
	// it.
	File string
	// Getenv reads the environment variables that *_env keys name.
	Getenv func(string) string
	// Host, when set, also checks what the settings name on this
	// machine, without starting or writing anything: programs,
	// directories, files to append to.
	Host bool

	errs []*Error
}

// Errorf records an error at n.
func (d *Decoder) Errorf(n *yaml.Node, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.File, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
}

// Errs returns how many errors have been recorded: a check that reports
// a missing setting only when nothing else was wrong compares it before
// and after.
func (d *Decoder) Errs() int { return len(d.errs) }

// Err returns the recorded errors joined, in the order of the file as an
// editor lists them, or nil.
func (d *Decoder) Err() error {
	slices.SortStableFunc(d.errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	var errs []error
	for _, e := range d.errs {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// Mapping calls fields[key] for each key of n, a mapping: an unknown key
// or one given twice is an error, with a hint for a near miss. A null n
// (a key without a value) is an empty mapping.
func (d *Decoder) Mapping(n *yaml.Node, what string, fields map[string]func(*yaml.Node)) {
	d.mapping(n, what, slices.Sorted(maps.Keys(fields)), func(k, v *yaml.Node) { fields[k.Value](v) })
}

func (d *Decoder) mapping(n *yaml.Node, what string, names []string, set func(k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		if !IsNull(n) {
			d.Errorf(n, "%s must be a mapping of keys to values", what)
		}
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !slices.Contains(names, k.Value):
			d.Errorf(k, "unknown key %q in %s%s (known: %s)", k.Value, what, DidYouMean(k.Value, names), strings.Join(names, ", "))
		case seen[k.Value]:
			d.Errorf(k, "key %q is given twice", k.Value)
		default:
			seen[k.Value] = true
			set(k, v)
		}
	}
}

// IsNull reports whether n is a null scalar: a key given without a value.
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// Scalar reports whether n is a scalar, recording an error that names
// want if not.
func (d *Decoder) Scalar(n *yaml.Node, want string) bool {
	if n.Kind != yaml.ScalarNode {
		d.Errorf(n, "want %s, got a %s", want, kindName(n))
		return false
	}
	return true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}

// Str reads a string.
func (d *Decoder) Str(n *yaml.Node) string {
	if !d.Scalar(n, "a string") {
		return ""
	}
	return n.Value
}

// Bool reads true or false.
func (d *Decoder) Bool(n *yaml.Node) bool {
	if !d.Scalar(n, "true or false") {
		return false
	}
	b, err := strconv.ParseBool(n.Value)
	if err != nil {
		d.Errorf(n, "want true or false, got %q", n.Value)
	}
	return b
}

// Int reads a non-negative integer.
func (d *Decoder) Int(n *yaml.Node) int {
	if !d.Scalar(n, "an integer") {
		return 0
	}
	i, err := strconv.Atoi(n.Value)
	if err != nil || i < 0 {
		d.Errorf(n, "want a non-negative integer, got %q", n.Value)
	}
	return i
}

// Duration reads a non-negative duration such as 30s.
func (d *Decoder) Duration(n *yaml.Node) time.Duration {
	if !d.Scalar(n, "a duration such as 30s") {
		return 0
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		d.Errorf(n, "want a duration such as 30s or 1m, got %q", n.Value)
	}
	return v
}

// Seq returns the items of n, a list.
func (d *Decoder) Seq(n *yaml.Node) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, "want a list, got a %s", kindName(n))
		return nil
	}
	return n.Content
}

// Strs reads a list of strings.
func (d *Decoder) Strs(n *yaml.Node) []string {
	var out []string
	for _, item := range d.Seq(n) {
		out = append(out, d.Str(item))
	}
	return out
}

// Env reads the value of the environment variable n names: how secrets
// (token_env) stay out of the file.
func (d *Decoder) Env(n *yaml.Node) string {
	name := d.Str(n)
	v := d.Getenv(name)
	if name != "" && v == "" {
		d.Errorf(n, "environment variable %s is not set", name)
	}
	return v
}

// KeyOf returns the key of value v in mapping m (v itself if it is not
// one of m's values): where an error about a key belongs.
func KeyOf(m, v *yaml.Node) *yaml.Node {
	for i := 1; i < len(m.Content); i += 2 {
		if m.Content[i] == v {
			return m.Content[i-1]
		}
	}
	return v
}

// Validator is a configuration that checks itself: nil, or the
// errors.Join of *flows.Error values whose Field is the path of the
// field they are about, in the file's spelling ("tokens[0].user").
type Validator interface{ Validate() error }

// Section decodes n, a plugin's section named name, into v (a pointer to
// its configuration), then reports what v's Validate returns, each error
// at the node its Field names (the section's when it names none found).
// A string field tagged path:"relative" is a path: a relative one is made
// relative to the directory of the Decoder's File.
// It reports whether the section decoded and validated without error.
func (d *Decoder) Section(n *yaml.Node, name string, v any) bool {
	errs := len(d.errs)
	w := walk{d: d, nodes: map[string]*yaml.Node{"": n}}
	w.value(n, name, "", reflect.ValueOf(v).Elem())
	if len(d.errs) > errs {
		return false
	}
	if val, ok := v.(Validator); ok {
		w.report(n, name, val.Validate())
	}
	if hc, ok := v.(HostChecker); ok && d.Host && len(d.errs) == errs {
		w.report(n, name, hc.CheckHost())
	}
	return len(d.errs) == errs
}

// HostChecker is a configuration that can check what its settings name on
// this machine (programs, directories, files), without starting or
// writing anything; its errors are a Validator's. [Decoder.Section] calls
// CheckHost when the Decoder's Host is set and Validate found nothing.
type HostChecker interface{ CheckHost() error }

// report records the errors err joins, each at the node its Field names
// (the section n's when it names none found).
func (w *walk) report(n *yaml.Node, name string, err error) {
	d := w.d
	for _, err := range leaves(err) {
		var fe *flows.Error
		field := ""
		if errors.As(err, &fe) {
			field = fe.Field
		}
		at := n
		for p := field; ; p = parent(p) {
			if node, ok := w.nodes[p]; ok {
				at = node
				break
			}
			if p == "" {
				break
			}
		}
		d.Errorf(at, "%s", message(name, err))
	}
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

// message renders a Validate error of the section name for the file:
// "<section> <field>: <message>", without the "hookflow: invalid: " the
// error's own text starts with, which a position says better.
func message(name string, err error) string {
	var fe *flows.Error
	if !errors.As(err, &fe) || fe.Code != flows.CodeInvalid {
		return name + ": " + err.Error()
	}
	var parts []string
	if fe.Msg != "" {
		parts = append(parts, fe.Msg)
	}
	if fe.Err != nil {
		parts = append(parts, flows.Reason(fe.Err))
	}
	subject := name
	if fe.Field != "" {
		subject += " " + fe.Field
	}
	return subject + ": " + strings.Join(parts, ": ")
}

// walk decodes nodes into Go values by reflection, recording where each
// field's value is (by its path in the file's spelling) for the errors
// Validate reports.
type walk struct {
	d     *Decoder
	nodes map[string]*yaml.Node
}

var (
	durationType        = reflect.TypeFor[time.Duration]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value decodes n into v, whose path is path; what names it in errors.
func (w *walk) value(n *yaml.Node, what, path string, v reflect.Value) {
	d := w.d
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	w.nodes[path] = n
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		if IsNull(n) && t.Elem().Kind() != reflect.Struct {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		w.value(n, what, path, v.Elem())
		return
	}
	if t == durationType {
		v.SetInt(int64(d.Duration(n)))
		return
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) && (n.Kind == yaml.ScalarNode || t.Kind() != reflect.Struct) {
		if !d.Scalar(n, "a value such as "+example(t)) {
			return
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
			d.Errorf(n, "%s", flows.Reason(err))
		} else if t.Kind() == reflect.Struct {
			// A struct's short form ("file: audit.jsonl") may set a path.
			for i := range t.NumField() {
				d.relative(t.Field(i), v.Field(i))
			}
		}
		return
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(d.Str(n))
	case reflect.Bool:
		v.SetBool(d.Bool(n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if d.Scalar(n, "an integer") {
			i, err := strconv.ParseInt(n.Value, 10, t.Bits())
			if err != nil {
				d.Errorf(n, "want an integer, got %q", n.Value)
			}
			v.SetInt(i)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if d.Scalar(n, "an integer") {
			i, err := strconv.ParseUint(n.Value, 10, t.Bits())
			if err != nil {
				d.Errorf(n, "want a non-negative integer, got %q", n.Value)
			}
			v.SetUint(i)
		}
	case reflect.Float32, reflect.Float64:
		if d.Scalar(n, "a number") {
			f, err := strconv.ParseFloat(n.Value, t.Bits())
			if err != nil {
				d.Errorf(n, "want a number, got %q", n.Value)
			}
			v.SetFloat(f)
		}
	case reflect.Slice:
		items := d.Seq(n)
		s := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			w.value(item, what, fmt.Sprintf("%s[%d]", path, i), s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			d.Errorf(n, "%s: cannot decode a map keyed by %v", what, t.Key())
			return
		}
		if n.Kind != yaml.MappingNode {
			d.Errorf(n, "%s must be a mapping of keys to values", what)
			return
		}
		m := reflect.MakeMapWithSize(t, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if m.MapIndex(reflect.ValueOf(k.Value).Convert(t.Key())).IsValid() {
				d.Errorf(k, "key %q is given twice", k.Value)
				continue
			}
			e := reflect.New(t.Elem()).Elem()
			w.value(val, k.Value, join(path, k.Value), e)
			m.SetMapIndex(reflect.ValueOf(k.Value).Convert(t.Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		fields := yamlFields(t)
		d.mapping(n, what, slices.Sorted(maps.Keys(fields)), func(k, val *yaml.Node) {
			f := v.FieldByIndex(fields[k.Value])
			w.value(val, k.Value, join(path, k.Value), f)
			d.relative(t.FieldByIndex(fields[k.Value]), f)
		})
	case reflect.Interface:
		var x any
		if err := n.Decode(&x); err != nil {
			d.Errorf(n, "%s: %v", what, err)
			return
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		d.Errorf(n, "%s: cannot decode a %v", what, t)
	}
}

// join returns the path of key under path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// example is the form of a TextUnmarshaler's value an error shows: what
// its zero value's MarshalText gives, else its type's name.
func example(t reflect.Type) string {
	if m, ok := reflect.New(t).Interface().(encoding.TextMarshaler); ok {
		if b, err := m.MarshalText(); err == nil && len(b) > 0 {
			return string(b)
		}
	}
	return t.Name()
}

// yamlFields returns the fields of struct type t a file may set, by yaml
// name, with their indexes: the fields with a yaml tag other than "-",
// and those of embedded structs tagged ",inline".
func yamlFields(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("yaml")
		if !ok || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || opts == "inline" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Index
	}
	return out
}

// Fields returns the yaml names of the fields of struct type t a file may
// set, with the Go names of the fields, in the order of the struct: what
// a reference of the configuration lists.
func Fields(t reflect.Type) []Field {
	var out []Field
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("yaml")
		if !ok || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || opts == "inline" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, Field{YAML: name, Go: f.Name, Type: f.Type})
	}
	return out
}

// Field is a field of a configuration a file may set.
type Field struct {
	// YAML is its key in the file; Go its Go name.
	YAML, Go string
	Type     reflect.Type
}

// relative makes f, the value of field sf, relative to the directory of
// the Decoder's File when sf is a string tagged path:"relative" and f a
// relative path.
func (d *Decoder) relative(sf reflect.StructField, f reflect.Value) {
	if sf.Tag.Get("path") != "relative" || f.Kind() != reflect.String || !f.CanSet() {
		return
	}
	if p := f.String(); p != "" && !filepath.IsAbs(p) {
		f.SetString(filepath.Join(filepath.Dir(d.File), p))
	}
}
