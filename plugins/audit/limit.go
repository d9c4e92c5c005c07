package audit

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hookflow/hookflow/flows"
)

// notRecorded replaces the part of an invalid-input error that quotes the
// caller's value.
const notRecorded = "(value not recorded)"

// reason is the text an event records for the run's error: flows.Reason,
// except for invalid input (see inputError).
func reason(err error) string {
	var e *flows.Error
	if !errors.As(err, &e) || e.Code != flows.CodeInvalidInput || e.Err == nil {
		return flows.Reason(err)
	}
	return inputError(e.Err)
}

// inputError renders an invalid-input error without the caller's value.
// Validation errors are chains of wrappers that each prefix a location to
// their cause ("validating /properties/password: …"), ending in a cause
// that quotes the value ("type: [hunter2] has type \"array\"…"). The
// locations come from the tool's schema, not from the caller, and are
// kept; of the cause only its JSON Schema keyword ("type") is kept, or for
// a decoding error the field and the Go type it wanted.
func inputError(err error) string {
	var parts []string
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		outer, in := err.Error(), inner.Error()
		prefix, ok := strings.CutSuffix(outer, ": "+in)
		if !ok {
			break // a wrapper that does not just prefix its cause
		}
		parts = append(parts, prefix)
		err = inner
	}
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		parts = append(parts, "field "+strconv.Quote(typ.Field)+" wants "+typ.Type.String()+" "+notRecorded)
	case errors.As(err, &syn):
		parts = append(parts, "malformed JSON at offset "+strconv.FormatInt(syn.Offset, 10))
	default:
		if k := keyword(err.Error()); k != "" {
			parts = append(parts, k+" "+notRecorded)
		} else {
			parts = append(parts, notRecorded)
		}
	}
	return strings.Join(parts, ": ")
}

// keyword returns the JSON Schema keyword that starts a validator's
// message ("type: …", "minLength: …"), or "".
func keyword(msg string) string {
	i := 0
	for i < len(msg) && (msg[i] >= 'a' && msg[i] <= 'z' || msg[i] >= 'A' && msg[i] <= 'Z') {
		i++
	}
	if i == 0 || i == len(msg) || msg[i] != ':' {
		return ""
	}
	return msg[:i]
}

// truncateJSON returns the start of raw as a JSON string of at most max
// bytes, encoded.
func truncateJSON(raw json.RawMessage, max int) json.RawMessage {
	n := min(len(raw), max)
	for {
		n = validPrefix(raw, n)
		b, err := json.Marshal(string(raw[:n]))
		if err != nil || len(b) <= max || n == 0 {
			if len(b) > max {
				return json.RawMessage(`""`)
			}
			return b
		}
		n -= len(b) - max
		if n < 0 {
			n = 0
		}
	}
}

// truncateText cuts s to at most max bytes, ending with "…" when there is
// room for it.
func truncateText(s string, max int) string {
	const ellipsis = "…"
	if max < len(ellipsis) {
		return s[:validPrefix([]byte(s), max)]
	}
	return s[:validPrefix([]byte(s), max-len(ellipsis))] + ellipsis
}

// validPrefix returns the largest n' ≤ n at which b can be cut without
// splitting a UTF-8 sequence.
func validPrefix(b []byte, n int) int {
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}
