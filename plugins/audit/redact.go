package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// redactor replaces the values of configured fields in JSON arguments.
// A name without dots ("password") matches a field of that name at any
// depth; a dotted path ("user.password", "items.*.token") matches from the
// top of the arguments, "*" matching any field name. Arrays are transparent:
// a path continues into every element. Names compare case-insensitively,
// as Go's JSON decoding does, so "Password" cannot slip through.
type redactor struct {
	names []string
	paths [][]string
}

func newRedactor(fields []string) (*redactor, error) {
	r := &redactor{}
	for i, f := range fields {
		segs := strings.Split(f, ".")
		for _, s := range segs {
			if s == "" {
				return nil, fmt.Errorf("Config.Redact[%d]: %q has an empty field name", i, f)
			}
		}
		if len(segs) == 1 {
			r.names = append(r.names, f)
		} else {
			r.paths = append(r.paths, segs)
		}
	}
	return r, nil
}

func (r *redactor) empty() bool { return len(r.names) == 0 && len(r.paths) == 0 }

// apply returns raw with the configured fields redacted. Arguments that do
// not parse are not logged at all (they could hold anything).
func (r *redactor) apply(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if r.empty() {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(`"[UNPARSABLE]"`)
	}
	return r.encode(r.walk(v, r.paths))
}

// applyValue is apply for arguments that are already Go values (a
// prompt's map[string]any).
func (r *redactor) applyValue(v any) json.RawMessage {
	return r.encode(r.walk(v, r.paths))
}

func (r *redactor) encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`"[UNPARSABLE]"`)
	}
	return b
}

// walk redacts v in place; partial holds the remaining segments of the
// paths that matched so far.
func (r *redactor) walk(v any, partial [][]string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if r.nameMatch(k) {
				x[k] = Redacted
				continue
			}
			var next [][]string
			hit := false
			for _, p := range partial {
				if p[0] == "*" || strings.EqualFold(p[0], k) {
					if len(p) == 1 {
						hit = true
						break
					}
					next = append(next, p[1:])
				}
			}
			if hit {
				x[k] = Redacted
				continue
			}
			x[k] = r.walk(val, next)
		}
	case []any:
		for i := range x {
			x[i] = r.walk(x[i], partial)
		}
	}
	return v
}

func (r *redactor) nameMatch(k string) bool {
	for _, n := range r.names {
		if strings.EqualFold(n, k) {
			return true
		}
	}
	return false
}
