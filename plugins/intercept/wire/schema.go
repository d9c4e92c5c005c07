package wire

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed sep2624.schema.json
var schemaJSON []byte

// The definitions of [Schema], one per message.
const (
	DefInterceptor        = "Interceptor"
	DefListParams         = "ListInterceptorsParams"
	DefListResult         = "ListInterceptorsResult"
	DefInvokeParams       = "InterceptorInvocationParams"
	DefValidationResult   = "ValidationResult"
	DefMutationResult     = "MutationResult"
	DefInvokeResult       = "InterceptorInvocationResult"
	DefErrorData          = "ErrorData"
	DefCapabilitySettings = "ServerCapabilitySettings"
)

// Schema returns the SEP's message shapes as a JSON Schema (draft 2020-12)
// document whose $defs are named by the Def constants. The SEP states its
// shapes in TypeScript; this is hookflow's transcription of them, used to
// check messages at trust boundaries and in tests.
func Schema() []byte { return append([]byte(nil), schemaJSON...) }

// Validator checks JSON values against the definitions of [Schema].
type Validator struct {
	defs map[string]*jsonschema.Resolved
}

// NewValidator resolves every definition of [Schema].
func NewValidator() (*Validator, error) {
	var root jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &root); err != nil {
		return nil, fmt.Errorf("wire: the schema: %w", err)
	}
	v := &Validator{defs: map[string]*jsonschema.Resolved{}}
	for name := range root.Defs {
		s := root.CloneSchemas()
		s.Ref = "#/$defs/" + name
		r, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("wire: the schema's %s: %w", name, err)
		}
		v.defs[name] = r
	}
	return v, nil
}

// Validate checks the JSON value data against the definition def.
func (v *Validator) Validate(def string, data []byte) error {
	r, ok := v.defs[def]
	if !ok {
		return fmt.Errorf("wire: no definition %q in the schema", def)
	}
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := r.Validate(x); err != nil {
		return fmt.Errorf("%s: %w", def, err)
	}
	return nil
}
