package flows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Redacted replaces the values of redacted fields.
const Redacted = "[REDACTED]"

// unparsable is what [Redactor.Redact] returns for arguments that are not
// JSON: they could hold anything, so none of it is kept.
var unparsable = json.RawMessage(`"[UNPARSABLE]"`)

// Redactor replaces the values of listed fields in a request's JSON
// arguments, the same way for every reader of run data (an audit trail, a
// tracer, a console), so that a field an operator listed once is hidden
// everywhere. Build it with [NewRedactor]; a Redactor is immutable and
// safe for concurrent use, and a nil *Redactor redacts nothing.
//
// A field is a name or a dotted path. A name ("password") matches a field
// of that name at any depth. A path ("card.number", "items.*.token")
// matches from the top of the arguments, "*" matching any field name.
// Arrays are transparent: a path goes on into every element, and a name
// matches inside them. Names compare case-insensitively, as Go's JSON
// decoding does, so that "Password" cannot slip past "password". A
// matching field's whole value, object or array included, becomes
// [Redacted].
type Redactor struct {
	names []string
	paths [][]string
}

// NewRedactor returns a Redactor for fields. A field with an empty name
// ("", "a..b", "a.") is an *Error with CodeInvalid that quotes it.
func NewRedactor(fields []string) (*Redactor, error) {
	r := &Redactor{}
	for _, f := range fields {
		segs := strings.Split(f, ".")
		for _, s := range segs {
			if s == "" {
				return nil, &Error{Code: CodeInvalid, Msg: fmt.Sprintf("%q has an empty field name", f)}
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

// empty reports whether r redacts nothing.
func (r *Redactor) empty() bool { return r == nil || len(r.names) == 0 && len(r.paths) == 0 }

// Redact returns raw with the listed fields' values replaced by
// [Redacted], in compact form with object keys sorted; numbers keep their
// text. Arguments that are not JSON come back as the JSON string
// "[UNPARSABLE]", empty ones as nil. When r redacts nothing, raw comes
// back as it is, without allocating. Redact decodes the whole of raw:
// callers bound its size (the framework bounds a request's arguments).
func (r *Redactor) Redact(raw json.RawMessage) json.RawMessage {
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
		return unparsable
	}
	return encode(r.walk(v, r.paths))
}

// RedactValue is Redact for arguments that are already Go values, as
// encoding/json decodes them (e.g. a prompt's arguments as a
// map[string]any). It replaces the values in v's maps and slices in
// place, so callers pass a copy they own, and returns v as JSON.
func (r *Redactor) RedactValue(v any) json.RawMessage {
	if !r.empty() {
		v = r.walk(v, r.paths)
	}
	return encode(v)
}

func encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return unparsable
	}
	return b
}

// walk redacts v in place; partial holds the remaining segments of the
// paths that matched so far.
func (r *Redactor) walk(v any, partial [][]string) any {
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

func (r *Redactor) nameMatch(k string) bool {
	for _, n := range r.names {
		if strings.EqualFold(n, k) {
			return true
		}
	}
	return false
}
