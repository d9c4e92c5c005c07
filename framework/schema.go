package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// ArgumentLimits bounds what a tool call's arguments may make the server
// validate and decode ([Options.ArgumentLimits]). A call whose arguments
// pass a bound fails before validation with a -32602 (invalid params)
// protocol error naming the bound and its value, never the input. A zero
// field takes its default; to allow more, set a larger value (a negative
// one also takes the default: there is no unbounded setting).
type ArgumentLimits struct {
	// Bytes bounds the size of the arguments' JSON text, as sent. The
	// default, 4 MiB, is the SDK's bound on a whole HTTP request body
	// (mcp.DefaultMaxRequestBodyBytes); here it holds on stdio and in
	// memory too.
	Bytes int
	// Depth bounds how deeply objects and arrays nest: the arguments
	// object is level 1, an object or array in it level 2, and so on. The
	// default is 64. (The SDK refuses a message that nests deeper than
	// 1,000 levels before any bound here applies.)
	Depth int
	// Keys bounds the object keys in the arguments, the keys of nested
	// objects included. The default is 10,000.
	Keys int
}

// The defaults of ArgumentLimits. Depth and keys are far past what a model
// writes in one call (10,000 keys are tens of thousands of output tokens)
// and keep a decoded map to a few MiB; a program that sends more raises
// them.
const (
	defaultArgumentBytes = 4 << 20
	defaultArgumentDepth = 64
	defaultArgumentKeys  = 10_000
)

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// check returns a -32602 *jsonrpc.Error when data is past one of l's
// bounds. It reads data once, without recursion or allocation, counting
// the brackets and colons outside strings: for valid JSON the nesting and
// the keys. What it lets through from invalid JSON the parsers refuse.
func (l ArgumentLimits) check(data []byte) error {
	maxBytes := orDefault(l.Bytes, defaultArgumentBytes)
	maxDepth := orDefault(l.Depth, defaultArgumentDepth)
	maxKeys := orDefault(l.Keys, defaultArgumentKeys)
	if len(data) > maxBytes {
		return limitError("arguments are larger than %d bytes", maxBytes)
	}
	depth, keys := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > maxDepth {
				return limitError("arguments nest deeper than %d levels", maxDepth)
			}
		case '}', ']':
			depth--
		case ':':
			if keys++; keys > maxKeys {
				return limitError("arguments hold more than %d keys", maxKeys)
			}
		}
	}
	return nil
}

func limitError(format string, limit int) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, limit)}
}
