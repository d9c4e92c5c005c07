package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	segjson "github.com/segmentio/encoding/json"
)

// schemaFor infers the JSON schema of T the way the SDK's typed AddTool
// does (pointers are looked through) and resolves it for validation. When
// given is non-nil it is used instead of inference.
func schemaFor[T any](given any) (*jsonschema.Schema, *jsonschema.Resolved, error) {
	var s *jsonschema.Schema
	switch g := given.(type) {
	case nil:
		rt := reflect.TypeFor[T]()
		for rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		if rt == reflect.TypeFor[any]() {
			s = &jsonschema.Schema{Type: "object"}
			break
		}
		var err error
		if s, err = jsonschema.ForType(rt, &jsonschema.ForOptions{}); err != nil {
			return nil, nil, err
		}
	case *jsonschema.Schema:
		s = g
	default:
		b, err := json.Marshal(g)
		if err != nil {
			return nil, nil, err
		}
		s = new(jsonschema.Schema)
		if err := json.Unmarshal(b, s); err != nil {
			return nil, nil, err
		}
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, nil, err
	}
	return s, r, nil
}

// applyInput validates raw tool arguments against resolved, applying
// defaults, and returns the JSON to unmarshal. Missing arguments are {}.
func applyInput(raw json.RawMessage, resolved *jsonschema.Resolved) (json.RawMessage, error) {
	if resolved == nil {
		return raw, nil
	}
	v := map[string]any{}
	if len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("unmarshaling arguments: %w", err)
		}
	}
	var vv any = v
	if err := resolved.ApplyDefaults(&vv); err != nil {
		return nil, fmt.Errorf("applying schema defaults: %w", err)
	}
	if err := resolved.Validate(&vv); err != nil {
		return nil, readable(err)
	}
	return json.Marshal(vv)
}

// applyOutput validates a tool's marshalled output against resolved,
// applying defaults.
func applyOutput(data json.RawMessage, resolved *jsonschema.Resolved) (json.RawMessage, error) {
	if resolved == nil {
		return data, nil
	}
	var v any
	if len(data) > 0 {
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("unmarshaling output: %w", err)
		}
	}
	applied := false
	if _, ok := v.(map[string]any); ok {
		if err := resolved.ApplyDefaults(&v); err != nil {
			return nil, err
		}
		applied = true
	} else if v == nil && resolved.Schema().Type == "object" {
		v = map[string]any{}
		applied = true
	}
	if err := resolved.Validate(&v); err != nil {
		return nil, readable(err)
	}
	if !applied {
		return data, nil
	}
	return json.Marshal(v)
}

func isObjectJSON(data []byte) bool {
	for _, b := range data {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// decodeArgs decodes validated tool arguments into v the way the SDK does:
// object keys match struct field names (or their json tags) exactly, not
// case-insensitively as encoding/json would.
func decodeArgs(data []byte, v any) error {
	_, err := segjson.Parse(data, v, segjson.DontMatchCaseInsensitiveStructFields)
	return err
}

// readable returns a validation error whose text names a JSON null "null":
// the validator formats a null instance as the Go text of an invalid
// reflect.Value, which the model reading the error cannot make sense of.
// The validator's errors carry nothing but their text.
func readable(err error) error {
	msg := err.Error()
	if !strings.Contains(msg, invalidValue) {
		return err
	}
	return errors.New(strings.ReplaceAll(msg, invalidValue, "null"))
}

// invalidValue is how fmt prints the zero reflect.Value, which the validator
// holds for a JSON null.
const invalidValue = "<invalid reflect.Value>"
