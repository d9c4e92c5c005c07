package yamlconf

import (
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// field is a struct field a file may set, or a key it refuses.
type field struct {
	// name is its key, and the last part of its path whichever key set
	// it; env the key that names an environment variable holding its
	// value instead, and only that env is the only way (a secret).
	name, env string
	only      bool
	// removed, for a key that is gone, says why; deprecated, for a key
	// that still works but will not, what to give instead.
	removed, deprecated string
	sf                  reflect.StructField
}

// structFields returns the fields of struct type t a file may set: those
// with a yaml tag other than "-", the fields of embedded structs tagged
// ",inline" as its own, and the blank fields tagged removed.
func structFields(t reflect.Type) []field {
	var out []field
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case !ok || name == "-" || opts == "inline":
			continue
		case f.Name == "_" && f.Tag.Get("removed") != "":
			out = append(out, field{name: name, removed: f.Tag.Get("removed")})
			continue
		case !f.IsExported():
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		env, only, _ := strings.Cut(f.Tag.Get("env"), ",")
		out = append(out, field{name: name, env: env, only: only == "only", deprecated: f.Tag.Get("deprecated"), sf: f})
	}
	return out
}

// known returns the keys of fs a file may give, sorted: what an unknown
// key's error lists.
func known(fs []field) []string {
	var names []string
	for _, f := range fs {
		if f.removed == "" && !f.only {
			names = append(names, f.name)
		}
		if f.env != "" {
			names = append(names, f.env)
		}
	}
	slices.Sort(names)
	return names
}

// lookup returns the field key sets, and whether key is the field's env
// key.
func lookup(fs []field, key string) (f *field, env bool) {
	for i := range fs {
		switch key {
		case fs[i].name:
			return &fs[i], false
		case fs[i].env:
			return &fs[i], true
		}
	}
	return nil, false
}

// fields decodes the mapping n, the value at path, into the struct v.
func (d *Decoder) fields(n *yaml.Node, what, path string, v reflect.Value) {
	fs := structFields(v.Type())
	names := known(fs)
	accept := func(k string) bool { f, _ := lookup(fs, k); return f != nil }
	// given is the key that set each field, for a field its env key
	// can set too.
	given := map[string]*yaml.Node{}
	d.mapping(n, what, path, names, accept, func(k, val *yaml.Node) {
		f, env := lookup(fs, k.Value)
		at := Join(path, f.name)
		switch {
		case f.removed != "":
			d.Errorf(k, at, "%s was removed: %s; delete the key", k.Value, f.removed)
			return
		case f.only && !env:
			d.Errorf(val, at, "%s", secretKey(f.name, f.env))
			return
		case given[f.name] != nil:
			d.Errorf(k, at, "give %s or %s, not both", f.name, f.env)
			return
		}
		given[f.name] = k
		if f.deprecated != "" && !env {
			d.Warnf(k, at, "%s is deprecated: %s", at, f.deprecated)
		}
		fv := v.FieldByIndex(f.sf.Index)
		if env && fv.Kind() == reflect.String {
			d.nodes[at] = val
			d.env(val, at, fv)
			return
		}
		d.value(val, k.Value, at, fv)
		d.relative(f.sf, fv)
	})
}

// mapping calls set for each key of n, the mapping at path, that accept
// takes: another key, or one given twice, is an error, with a hint for a
// near miss among names. A null n is an empty mapping.
func (d *Decoder) mapping(n *yaml.Node, what, path string, names []string, accept func(string) bool, set func(k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		if !isNull(n) {
			d.Errorf(n, path, "%s must be a mapping of keys to values", what)
		}
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content) && !d.stopped; i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !accept(k.Value):
			d.Errorf(k, Join(path, k.Value), "unknown key %q in %s%s (known: %s)", k.Value, what, DidYouMean(k.Value, names), strings.Join(names, ", "))
		case seen[k.Value]:
			d.Errorf(k, Join(path, k.Value), "key %q is given twice", k.Value)
		default:
			seen[k.Value] = true
			set(k, v)
		}
	}
}

// Fields returns the yaml names of the fields of struct type t a file may
// set (the env key of one only it may set), with the Go names of the fields, in the order of the struct: what
// a reference of the configuration lists.
func Fields(t reflect.Type) []Field {
	var out []Field
	for _, f := range structFields(t) {
		switch {
		case f.removed != "":
		case f.only:
			out = append(out, Field{YAML: f.env, Go: f.sf.Name, Type: f.sf.Type})
		default:
			out = append(out, Field{YAML: f.name, Go: f.sf.Name, Type: f.sf.Type})
		}
	}
	return out
}

// Field is a field of a configuration a file may set.
type Field struct {
	// YAML is its key in the file; Go its Go name.
	YAML, Go string
	Type     reflect.Type
}
