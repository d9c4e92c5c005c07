package framework

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// A compiled schema is a tool's input or output schema turned, at Start,
// into what one pass over the JSON text needs: validation and the
// canonical form (compact, object keys sorted, strings and numbers as
// encoding/json writes a decoded value) at once, with no decoding into
// maps and no encoding back. It covers the schemas inferred from Go types
// (type, properties, required, additionalProperties, items, annotations);
// a schema with any other keyword, or with a default, is not compiled, and
// its tool keeps the reference path (decode, ApplyDefaults, Validate,
// encode). Whenever a pass meets something it does not decide on its own —
// any invalid input, an escaped object key, a duplicate key, a number
// outside float64, deep nesting — it gives up, and the reference path
// decides and words the error. A compiled pass therefore accepts exactly
// what the reference path accepts and yields the same bytes.
type compiled struct {
	// types is the set of JSON types allowed (jsonType bits); 0 allows any.
	types uint8
	// props are the declared properties; reqBit is a property's bit in
	// required (0: not required).
	props map[string]prop
	// required has one bit per required property.
	required uint64
	// noExtra refuses properties not in props; else extra validates them
	// (nil: anything).
	noExtra bool
	extra   *compiled
	// items validates array items (nil: anything).
	items *compiled
	// passes recycles the state of passes (the root only).
	passes *sync.Pool
}

type prop struct {
	schema *compiled
	reqBit uint64
}

// The JSON types, as bits of compiled.types.
const (
	jsonNull uint8 = 1 << iota
	jsonBoolean
	jsonInteger
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// jsonType returns the bit of a JSON Schema type name, or 0.
func jsonType(name string) uint8 {
	switch name {
	case "null":
		return jsonNull
	case "boolean":
		return jsonBoolean
	case "integer":
		return jsonInteger
	case "number":
		return jsonNumber
	case "string":
		return jsonString
	case "array":
		return jsonArray
	case "object":
		return jsonObject
	}
	return 0
}

// compile returns s compiled, or nil when s uses what a compiled pass does
// not check.
func compile(s *jsonschema.Schema) *compiled {
	c, ok := compileNode(s, 0)
	if !ok || c == nil {
		return nil
	}
	c.passes = &sync.Pool{New: func() any { return new(pass) }}
	return c
}

// compileNode compiles s; a nil result with ok allows anything.
func compileNode(s *jsonschema.Schema, depth int) (_ *compiled, ok bool) {
	if s == nil {
		return nil, true
	}
	if depth > maxDepth {
		return nil, false
	}
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2020-12/schema":
	default:
		return nil, false
	}
	// Everything but the keywords handled below and pure annotations must
	// be unset.
	rest := *s
	rest.Schema, rest.Comment, rest.Title, rest.Description = "", "", "", ""
	rest.Deprecated, rest.ReadOnly, rest.WriteOnly, rest.Examples, rest.Format = false, false, false, nil, ""
	rest.PropertyOrder = nil
	rest.Type, rest.Types, rest.Properties, rest.Required, rest.AdditionalProperties, rest.Items = "", nil, nil, nil, nil, nil
	if !reflect.ValueOf(rest).IsZero() {
		return nil, false
	}
	c := &compiled{}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		bit := jsonType(t)
		if bit == 0 {
			return nil, false
		}
		c.types |= bit
	}
	if len(s.Required) > 64 {
		return nil, false
	}
	if len(s.Properties) > 0 || len(s.Required) > 0 {
		c.props = make(map[string]prop, len(s.Properties)+len(s.Required))
		for name, ps := range s.Properties {
			sub, ok := compileNode(ps, depth+1)
			if !ok {
				return nil, false
			}
			c.props[name] = prop{schema: sub}
		}
		for i, name := range s.Required {
			p := c.props[name]
			if p.reqBit != 0 {
				return nil, false // listed twice
			}
			p.reqBit = 1 << i
			c.props[name] = p
			c.required |= p.reqBit
		}
	}
	if a := s.AdditionalProperties; a != nil {
		if isFalseSchema(a) {
			c.noExtra = true
		} else {
			sub, ok := compileNode(a, depth+1)
			if !ok {
				return nil, false
			}
			c.extra = sub
		}
	}
	if s.Items != nil {
		sub, ok := compileNode(s.Items, depth+1)
		if !ok {
			return nil, false
		}
		c.items = sub
	}
	if c.types == 0 && c.props == nil && !c.noExtra && c.extra == nil && c.items == nil {
		return nil, true // the empty schema
	}
	return c, true
}

// isFalseSchema reports whether s is {"not": {}}, the false schema.
func isFalseSchema(s *jsonschema.Schema) bool {
	rest := *s
	rest.Not = nil
	return s.Not != nil && reflect.ValueOf(*s.Not).IsZero() && reflect.ValueOf(rest).IsZero()
}

// maxDepth bounds the nesting a compiled pass follows.
const maxDepth = 64

// canonical validates data against c and returns its canonical form, or
// false when the reference path must decide. With args (tool arguments),
// missing or null data is {}. The result is data itself when data is
// canonical.
func (c *compiled) canonical(data []byte, args bool) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	if len(data) == 0 || string(bytes.TrimSpace(data)) == "null" {
		if !args || c.required != 0 || c.types != 0 && c.types&jsonObject == 0 {
			return nil, false
		}
		return []byte("{}"), true
	}
	p := c.passes.Get().(*pass)
	defer func() {
		if cap(p.out) > 1<<16 || cap(p.tmp) > 1<<16 || cap(p.members) > 1<<12 {
			p.out, p.tmp, p.members = nil, nil, nil // do not keep large buffers
		}
		p.in = nil
		c.passes.Put(p)
	}()
	// The canonical form is about as long as data: one allocation when
	// the recycled buffer is short.
	p.in, p.i, p.out, p.members = data, 0, slices.Grow(p.out[:0], len(data)), p.members[:0]
	if !p.value(c, 0) {
		return nil, false
	}
	if p.skip(); p.i != len(p.in) {
		return nil, false
	}
	if bytes.Equal(p.out, data) { // no space around: canonical already
		return data, true
	}
	return bytes.Clone(p.out), true
}

// pass is the state of one compiled pass; passes recycles them.
type pass struct {
	in      []byte
	i       int
	out     []byte
	tmp     []byte
	members []member
}

// member is an object member written to pass.out: the key (without
// quotes) at out[key0:key1], the whole member at out[start:end].
type member struct{ start, key0, key1, end int }

func (p *pass) skip() {
	for p.i < len(p.in) {
		switch p.in[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func allows(c *compiled, t uint8) bool { return c == nil || c.types == 0 || c.types&t != 0 }

// value checks the value at p.i against c and appends its canonical form.
func (p *pass) value(c *compiled, depth int) bool {
	if depth > maxDepth {
		return false
	}
	p.skip()
	if p.i >= len(p.in) {
		return false
	}
	switch b := p.in[p.i]; {
	case b == '{':
		return allows(c, jsonObject) && p.object(c, depth)
	case b == '[':
		return allows(c, jsonArray) && p.array(c, depth)
	case b == '"':
		return allows(c, jsonString) && p.str()
	case b == 't':
		return allows(c, jsonBoolean) && p.literal("true")
	case b == 'f':
		return allows(c, jsonBoolean) && p.literal("false")
	case b == 'n':
		return allows(c, jsonNull) && p.literal("null")
	case b == '-' || b >= '0' && b <= '9':
		return p.number(c)
	}
	return false
}

func (p *pass) literal(lit string) bool {
	if !bytes.HasPrefix(p.in[p.i:], []byte(lit)) {
		return false
	}
	p.i += len(lit)
	p.out = append(p.out, lit...)
	return true
}

func (p *pass) object(c *compiled, depth int) bool {
	p.i++ // {
	p.out = append(p.out, '{')
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	var seen uint64
	p.skip()
	if p.i < len(p.in) && p.in[p.i] == '}' {
		p.i++
	} else {
		for {
			p.skip()
			if len(p.members) > base {
				p.out = append(p.out, ',')
			}
			m := member{start: len(p.out), key0: len(p.out) + 1}
			// Keys are taken as they are: an escaped key leaves the
			// decision to the reference path.
			if p.i >= len(p.in) || p.in[p.i] != '"' {
				return false
			}
			end := p.i + 1
			for end < len(p.in) && p.in[end] != '"' {
				if b := p.in[end]; b == '\\' || b < 0x20 || needsCare(b) {
					return false
				}
				end++
			}
			if end >= len(p.in) {
				return false
			}
			key := p.in[p.i+1 : end]
			p.out = append(p.out, p.in[p.i:end+1]...)
			m.key1 = len(p.out) - 1
			p.i = end + 1
			p.skip()
			if p.i >= len(p.in) || p.in[p.i] != ':' {
				return false
			}
			p.i++
			p.out = append(p.out, ':')
			var sub *compiled
			if c != nil {
				pr, declared := c.props[string(key)]
				switch {
				case declared:
					sub = pr.schema
					seen |= pr.reqBit
				case c.noExtra:
					return false
				default:
					sub = c.extra
				}
			}
			if !p.value(sub, depth+1) {
				return false
			}
			m.end = len(p.out)
			if len(p.members) == cap(p.members) { // double, not append's 1.25
				p.members = slices.Grow(p.members, len(p.members)+8)
			}
			p.members = append(p.members, m)
			p.skip()
			if p.i >= len(p.in) {
				return false
			}
			if p.in[p.i] == ',' {
				p.i++
				continue
			}
			if p.in[p.i] != '}' {
				return false
			}
			p.i++
			break
		}
	}
	if c != nil && seen != c.required {
		return false
	}
	if !p.sortMembers(base) {
		return false
	}
	p.out = append(p.out, '}')
	return true
}

// sortMembers puts the object's members, from members[base:], in key
// order, as encoding/json writes a map. A duplicate key is the reference
// path's to decide.
func (p *pass) sortMembers(base int) bool {
	ms := p.members[base:]
	sorted := true
	for i := 1; i < len(ms); i++ {
		switch bytes.Compare(p.key(ms[i-1]), p.key(ms[i])) {
		case 0:
			return false
		case 1:
			sorted = false
		}
	}
	if sorted {
		return true
	}
	// The members were written in input order, the first one first.
	start := ms[0].start
	// O(n log n) whatever the order: a peer picks the order of the keys.
	// Keys are compared as bytes, as Go compares the strings of a map's
	// keys; equal keys make the order of their members moot, since the
	// reference path then decides.
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(p.key(a), p.key(b)) })
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(p.key(ms[i-1]), p.key(ms[i])) {
			return false
		}
	}
	p.tmp = slices.Grow(p.tmp[:0], len(p.out)-start)
	for i, m := range ms {
		if i > 0 {
			p.tmp = append(p.tmp, ',')
		}
		p.tmp = append(p.tmp, p.out[m.start:m.end]...)
	}
	p.out = append(p.out[:start], p.tmp...)
	return true
}

func (p *pass) key(m member) []byte { return p.out[m.key0:m.key1] }

func (p *pass) array(c *compiled, depth int) bool {
	p.i++ // [
	p.out = append(p.out, '[')
	var items *compiled
	if c != nil {
		items = c.items
	}
	p.skip()
	if p.i < len(p.in) && p.in[p.i] == ']' {
		p.i++
		p.out = append(p.out, ']')
		return true
	}
	for n := 0; ; n++ {
		if n > 0 {
			p.out = append(p.out, ',')
		}
		if !p.value(items, depth+1) {
			return false
		}
		p.skip()
		if p.i >= len(p.in) {
			return false
		}
		switch p.in[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.out = append(p.out, ']')
			return true
		default:
			return false
		}
	}
}

// needsCare reports whether encoding/json writes b differently from how
// it may appear in a JSON string (it escapes <, > and &) or whether b
// starts a multi-byte UTF-8 sequence, checked separately.
func needsCare(b byte) bool { return b == '<' || b == '>' || b == '&' || b >= 0x80 }

// str appends the string at p.i as encoding/json writes its decoded value.
func (p *pass) str() bool {
	end := p.i + 1
	plain, ascii := true, true
	for ; end < len(p.in); end++ {
		b := p.in[end]
		if b == '"' {
			break
		}
		switch {
		case b == '\\':
			plain = false
			end++ // the escaped byte; \uXXXX is checked by the decoder below
		case b < 0x20:
			return false
		case b >= 0x80:
			ascii = false
		case needsCare(b):
			plain = false
		}
	}
	if end >= len(p.in) {
		return false
	}
	lit := p.in[p.i : end+1]
	p.i = end + 1
	if plain && !ascii {
		body := lit[1 : len(lit)-1]
		plain = utf8.Valid(body) && !bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029"))
	}
	if plain {
		p.out = append(p.out, lit...)
		return true
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return false
	}
	enc, err := json.Marshal(s)
	if err != nil {
		return false
	}
	p.out = append(p.out, enc...)
	return true
}

// number appends the number at p.i as encoding/json writes the float64 it
// decodes to, after checking its type against c.
func (p *pass) number(c *compiled) bool {
	start := p.i
	i := p.i
	if p.in[i] == '-' {
		i++
	}
	digits := i
	if i < len(p.in) && p.in[i] == '0' {
		i++
	} else {
		for i < len(p.in) && p.in[i] >= '0' && p.in[i] <= '9' {
			i++
		}
	}
	if i == digits {
		return false
	}
	simple := i-digits <= 15
	if i < len(p.in) && p.in[i] == '.' {
		simple = false
		i++
		f := i
		for i < len(p.in) && p.in[i] >= '0' && p.in[i] <= '9' {
			i++
		}
		if i == f {
			return false
		}
	}
	if i < len(p.in) && (p.in[i] == 'e' || p.in[i] == 'E') {
		simple = false
		i++
		if i < len(p.in) && (p.in[i] == '+' || p.in[i] == '-') {
			i++
		}
		e := i
		for i < len(p.in) && p.in[i] >= '0' && p.in[i] <= '9' {
			i++
		}
		if i == e {
			return false
		}
	}
	lit := p.in[start:i]
	p.i = i
	if simple { // an integer float64 holds exactly, written the same
		if !allows(c, jsonInteger|jsonNumber) {
			return false
		}
		p.out = append(p.out, lit...)
		return true
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return false
	}
	t := jsonNumber
	if _, frac := math.Modf(f); frac == 0 {
		t = jsonInteger | jsonNumber
	}
	if !allows(c, t) {
		return false
	}
	p.out = appendFloat(p.out, f)
	return true
}

// appendFloat writes f as encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
