package flows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	segjson "github.com/segmentio/encoding/json"
)

// Redacted replaces the values of redacted fields.
const Redacted = "[REDACTED]"

// unparsable is what [Redactor.Redact] returns for arguments that are not
// JSON: they could hold anything, so none of it is kept.
var unparsable = json.RawMessage(`"[UNPARSABLE]"`)

// Redactor replaces the values of secret-bearing fields in a request's
// JSON arguments or result, the same way for every reader of run data (an
// audit trail, a tracer, a console), so that a field hidden once is
// hidden everywhere. Build it with [NewRedactor]; a Redactor is immutable
// and safe for concurrent use, and a nil *Redactor redacts nothing.
//
// A field is hidden by its name, at any depth: a name is split into
// words at separators ("db_password", "X-Api-Key"), at a capital after a
// lower-case letter ("clientSecret"), before the last capital of a run
// ("APIKey") and where letters and digits meet ("token2"); words compare
// case-insensitively. Trailing words that do not change what a field
// holds ("value", "raw", "hash", "b64", "pem", "confirm", "new", "old",
// digits…) are left out; then the longest listed phrase the name's words
// end with decides. The default list hides names ending in password,
// passwords, passwd, passphrase, secret, secrets, token, credential(s),
// authorization, cookie(s), jwt, api key(s), apikey, private key, secret
// key, access key, signing key, encryption key, session id and session
// key; password, passwd, secret and token also end a word written
// without separators ("dbpassword", "authtoken"). So "apiKey",
// "clientSecret", "access_token" and "password_confirm" are hidden,
// while "max_tokens" (its last word is "tokens", which counts),
// "token_count", "tokenizer", "author", "passage", "keyboard" and
// "secret_name" stay visible, as do the pagination cursors "page_token",
// "next_token", "continuation_token" and "sync_token". [Redaction]
// extends the list and reveals names it would hide.
//
// A configured field is a name or a dotted path. A name ("card") joins
// the list, matched as above. A path ("card.number", "items.*.token")
// matches from the top of the arguments, segment by segment, "*"
// matching any field name. Arrays are transparent: a path goes on into
// every element, and a name matches inside them. A matching field's
// whole value, object or array included, becomes [Redacted].
type Redactor struct {
	fields   []phrase   // configured names, before the defaults
	defaults []phrase   // the default list
	reveal   [][]string // names the default list does not hide
	paths    [][]string
}

// Redaction configures a [Redactor]: what it hides besides its default
// list, and what of the default list it shows.
type Redaction struct {
	// Fields are names and dotted paths hidden besides the default list.
	Fields []string
	// Reveal are names the default list would hide that are shown:
	// "session_id" reveals "sessionId" and "Session-ID" too (the same
	// words), but not "user_session_id". Each must be one the default
	// list hides; Fields win over Reveal.
	Reveal []string
}

// NewRedactor returns a Redactor of the default list and c. A field
// with an empty name ("", "a..b", "a."), a name without a letter or
// digit ("_"), and a revealed name that is a path or that the default
// list does not hide are each an *Error with CodeInvalid that quotes it.
func NewRedactor(c Redaction) (*Redactor, error) {
	r := &Redactor{defaults: defaultPhrases()}
	for _, f := range c.Fields {
		segs := strings.Split(f, ".")
		for _, s := range segs {
			if s == "" {
				return nil, &Error{Code: CodeInvalid, Msg: fmt.Sprintf("%q has an empty field name", f)}
			}
		}
		if len(segs) > 1 {
			r.paths = append(r.paths, segs)
			continue
		}
		ws := splitName(f)
		if len(ws) == 0 {
			return nil, &Error{Code: CodeInvalid, Msg: fmt.Sprintf("%q has no letter or digit", f)}
		}
		r.fields = append(r.fields, phrase{words: ws, secret: true})
	}
	for _, n := range c.Reveal {
		if secret, _ := decide(r.defaults, n); !secret || strings.Contains(n, ".") {
			return nil, &Error{Code: CodeInvalid, Msg: fmt.Sprintf("%q is not a name the default list hides: nothing to reveal", n)}
		}
		r.reveal = append(r.reveal, splitName(n))
	}
	return r, nil
}

// Hides reports whether r hides a field named name wherever it is (a
// path may hide others too). It does not allocate.
func (r *Redactor) Hides(name string) bool {
	if r == nil {
		return false
	}
	if secret, found := decide(r.fields, name); found && secret {
		return true
	}
	for _, w := range r.reveal {
		if sameName(name, w) {
			return false
		}
	}
	secret, _ := decide(r.defaults, name)
	return secret
}

// Redact returns raw with the hidden fields' values replaced by
// [Redacted], in compact form with object keys sorted; numbers keep their
// text. Arguments that are not JSON come back as the JSON string
// "[UNPARSABLE]", empty ones as nil. When r is nil, or raw is JSON that
// has no field r hides, raw comes back as it is, without allocating (a
// key written with escapes costs its unescaping). Redact reads the whole
// of raw: callers bound its size (the framework bounds a request's
// arguments).
func (r *Redactor) Redact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if r == nil || r.clean(raw) {
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

// clean reports whether raw is valid JSON without a field r hides,
// reading its keys with a tokenizer that does not allocate. A Redactor with paths
// decodes instead.
func (r *Redactor) clean(raw []byte) bool {
	if len(r.paths) > 0 || !json.Valid(raw) {
		return false
	}
	var t segjson.Tokenizer
	t.Reset(raw)
	defer t.Reset(nil) // gives the tokenizer's stack back to its pool
	for t.Next() {
		if !t.IsKey {
			continue
		}
		k := t.String()
		if len(k) > 0 && r.Hides(unsafe.String(&k[0], len(k))) { // k is not kept
			return false
		}
	}
	return t.Err == nil
}

// RedactValue is Redact for arguments that are already Go values, as
// encoding/json decodes them (e.g. a prompt's arguments as a
// map[string]any). It replaces the values in v's maps and slices in
// place, so callers pass a copy they own, and returns v as JSON.
func (r *Redactor) RedactValue(v any) json.RawMessage {
	if r != nil {
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
			if r.Hides(k) {
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
