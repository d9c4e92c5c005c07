package framework

import (
	"reflect"
	"sync"

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
