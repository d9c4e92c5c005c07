package yamlconf

import (
	"encoding"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/hookflow/hookflow/flows"
)

var (
	durationType        = reflect.TypeFor[time.Duration]()
	headerType          = reflect.TypeFor[http.Header]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value decodes n, the value at path, into v; what names it in errors.
func (d *Decoder) value(n *yaml.Node, what, path string, v reflect.Value) {
	if d.stopped {
		return
	}
	if n.Kind == yaml.AliasNode {
		d.aliasDepth++
		defer func() { d.aliasDepth-- }()
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
	}
	if d.aliasDepth > 0 && !d.spend(n, 1) {
		return
	}
	if d.nodes == nil {
		d.nodes = map[string]*yaml.Node{}
	}
	d.nodes[path] = n
	t := v.Type()
	if i := slices.IndexFunc(d.Hooks, func(h Hook) bool { return h.t == t }); i >= 0 {
		d.Hooks[i].fn(d, n, path, v)
		return
	}
	switch {
	case t.Kind() == reflect.Pointer:
		if isNull(n) && t.Elem().Kind() != reflect.Struct {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.value(n, what, path, v.Elem())
	case t == durationType:
		v.SetInt(int64(d.duration(n, path)))
	case t == headerType:
		d.header(n, what, path, v)
	case reflect.PointerTo(t).Implements(textUnmarshalerType) && (n.Kind == yaml.ScalarNode || t.Kind() != reflect.Struct):
		d.text(n, path, v)
	default:
		d.kind(n, what, path, v)
	}
}

// spend counts k values decoded through aliases, and stops the decoding
// at n when they pass MaxExpanded.
func (d *Decoder) spend(n *yaml.Node, k int) bool {
	if d.expanded += k; d.expanded <= MaxExpanded {
		return true
	}
	d.Errorf(n, "", "the file's aliases expand it to over %d values: repeat less through aliases", MaxExpanded)
	d.stopped = true
	return false
}

// kind decodes n into v by v's kind.
func (d *Decoder) kind(n *yaml.Node, what, path string, v reflect.Value) {
	t := v.Type()
	switch t.Kind() {
	case reflect.String:
		v.SetString(d.str(n, path))
	case reflect.Bool:
		if d.scalar(n, path, "true or false") {
			b, err := strconv.ParseBool(n.Value)
			if err != nil {
				d.Errorf(n, path, "want true or false, got %q", n.Value)
			}
			v.SetBool(b)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if d.scalar(n, path, "an integer") {
			i, err := strconv.ParseInt(n.Value, 10, t.Bits())
			if err != nil {
				d.Errorf(n, path, "want an integer, got %q", n.Value)
			}
			v.SetInt(i)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if d.scalar(n, path, "an integer") {
			i, err := strconv.ParseUint(n.Value, 10, t.Bits())
			if err != nil {
				d.Errorf(n, path, "want a non-negative integer, got %q", n.Value)
			}
			v.SetUint(i)
		}
	case reflect.Float32, reflect.Float64:
		if d.scalar(n, path, "a number") {
			f, err := strconv.ParseFloat(n.Value, t.Bits())
			if err != nil {
				d.Errorf(n, path, "want a number, got %q", n.Value)
			}
			v.SetFloat(f)
		}
	case reflect.Slice:
		d.slice(n, what, path, v)
	case reflect.Map:
		d.dict(n, what, path, v)
	case reflect.Struct:
		d.fields(n, what, path, v)
	case reflect.Interface:
		d.any(n, what, path, v)
	default:
		d.Errorf(n, path, "%s: cannot decode a %v", what, t)
	}
}

// isNull reports whether n is a null scalar: a key given without a value.
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// scalar reports whether n is a scalar, recording an error that names
// want if not.
func (d *Decoder) scalar(n *yaml.Node, path, want string) bool {
	if n.Kind != yaml.ScalarNode {
		d.Errorf(n, path, "want %s, got a %s", want, kindName(n))
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

// str reads a string.
func (d *Decoder) str(n *yaml.Node, path string) string {
	if !d.scalar(n, path, "a string") {
		return ""
	}
	return n.Value
}

// duration reads a non-negative duration such as 30s.
func (d *Decoder) duration(n *yaml.Node, path string) time.Duration {
	if !d.scalar(n, path, "a duration such as 30s") {
		return 0
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		d.Errorf(n, path, "want a duration such as 30s or 1m, got %q", n.Value)
	}
	return v
}

// text decodes the scalar n into v through its UnmarshalText.
func (d *Decoder) text(n *yaml.Node, path string, v reflect.Value) {
	t := v.Type()
	if !d.scalar(n, path, "a value such as "+example(t)) {
		return
	}
	if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
		d.Errorf(n, path, "%s", flows.Reason(err))
	} else if t.Kind() == reflect.Struct {
		// A struct's short form ("file: audit.jsonl") may set a path.
		for i := range t.NumField() {
			d.relative(t.Field(i), v.Field(i))
		}
	}
}

// slice decodes the list n into v.
func (d *Decoder) slice(n *yaml.Node, what, path string, v reflect.Value) {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, path, "want a list, got a %s", kindName(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.value(item, what, fmt.Sprintf("%s[%d]", path, i), s.Index(i))
	}
	v.Set(s)
}

// dict decodes the mapping n into v, a map keyed by strings.
func (d *Decoder) dict(n *yaml.Node, what, path string, v reflect.Value) {
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		d.Errorf(n, path, "%s: cannot decode a map keyed by %v", what, t.Key())
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "%s must be a mapping of keys to values", what)
		return
	}
	m := reflect.MakeMapWithSize(t, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := reflect.ValueOf(k.Value).Convert(t.Key())
		if m.MapIndex(key).IsValid() {
			d.Errorf(k, Join(path, k.Value), "key %q is given twice", k.Value)
			continue
		}
		e := reflect.New(t.Elem()).Elem()
		d.value(val, k.Value, Join(path, k.Value), e)
		m.SetMapIndex(key, e)
	}
	v.Set(m)
}

// header decodes n, a mapping of header names to values, into the
// http.Header v: each entry is at its key, where an error about the
// header (by its canonical name) points.
func (d *Decoder) header(n *yaml.Node, what, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		if !isNull(n) {
			d.Errorf(n, path, "%s must be a mapping of header names to values", what)
		}
		return
	}
	h := http.Header{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		at := Join(path, http.CanonicalHeaderKey(k.Value))
		if _, ok := d.nodes[at]; !ok {
			d.nodes[at] = k
		}
		h.Add(k.Value, d.str(n.Content[i+1], at))
	}
	v.Set(reflect.ValueOf(h))
}

// any decodes n as YAML does into an interface, once the values it
// reaches through aliases are counted.
func (d *Decoder) any(n *yaml.Node, what, path string, v reflect.Value) {
	if !d.spend(n, aliased(n, d.aliasDepth > 0, MaxExpanded-d.expanded+1)) {
		return
	}
	var x any
	if err := n.Decode(&x); err != nil {
		d.Errorf(n, path, "%s: %v", what, err)
		return
	}
	if x == nil {
		return
	}
	if xv := reflect.ValueOf(x); xv.Type().AssignableTo(v.Type()) {
		v.Set(xv)
	} else {
		d.Errorf(n, path, "%s: cannot decode a %v", what, v.Type())
	}
}

// aliased returns how many values of n's tree are reached through an
// alias (all of them when through), counting no further than limit.
func aliased(n *yaml.Node, through bool, limit int) int {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return aliased(n.Alias, true, limit)
	}
	c := 0
	if through {
		c = 1
	}
	for _, child := range n.Content {
		if c > limit {
			break
		}
		c += aliased(child, through, limit-c)
	}
	return c
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

// env sets the string f from the environment variable n names.
func (d *Decoder) env(n *yaml.Node, path string, f reflect.Value) {
	name := d.str(n, path)
	if name == "" {
		return
	}
	getenv := d.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	v := getenv(name)
	if v == "" {
		d.Errorf(n, path, "environment variable %s is not set", name)
	}
	f.SetString(v)
}

// secretKey is the error of a secret given in the file: "a client
// secret" for client_secret.
func secretKey(key, envKey string) string {
	return fmt.Sprintf("a %s does not belong in the configuration file: put it in an environment variable and name that with %s", strings.ReplaceAll(key, "_", " "), envKey)
}
