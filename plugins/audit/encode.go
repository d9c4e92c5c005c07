package audit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/hookflow/hookflow/flows"
)

// appendJSON appends ev's JSON form to b: the bytes json.Marshal gives for
// *Event (the field order, omitempty and escaping of its tags), written
// without reflection. scratch is a buffer the caller reuses for Args.
// It fails as json.Marshal does, on Args that are not valid JSON.
func (ev *Event) appendJSON(b []byte, scratch *bytes.Buffer) ([]byte, error) {
	b = append(b, `{"time":"`...)
	b, err := ev.Time.AppendText(b)
	if err != nil {
		return nil, err
	}
	b = append(b, `","flow":`...)
	b = appendString(b, string(ev.Flow))
	b = appendField(b, "entity", ev.Entity)
	b = appendField(b, "session_id", ev.SessionID)
	b = append(b, `,"request_id":`...)
	b = appendString(b, ev.RequestID)
	b = appendField(b, "principal", ev.Principal)
	b = appendField(b, "client_id", ev.ClientID)
	b = append(b, `,"outcome":`...)
	b = appendString(b, string(ev.Outcome))
	b = appendField(b, "decided_by", ev.DecidedBy)
	b = appendField(b, "error", ev.Error)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(ev.Duration), 10)
	b = appendField(b, "uri", ev.URI)
	if len(ev.Args) > 0 {
		// As json.Marshal embeds a RawMessage: compacted, and with <, >,
		// & and U+2028/U+2029 escaped (they occur in strings only).
		scratch.Reset()
		if err := json.Compact(scratch, ev.Args); err != nil {
			return nil, err
		}
		b = append(b, `,"args":`...)
		out := bytes.NewBuffer(b)
		json.HTMLEscape(out, scratch.Bytes())
		b = out.Bytes()
	}
	if len(ev.FailedOpen) > 0 {
		b = append(b, `,"failed_open":[`...)
		for i, f := range ev.FailedOpen {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"hook":`...)
			b = appendString(b, f.Hook)
			b = append(b, `,"code":`...)
			b = appendString(b, f.Code)
			b = append(b, `,"error":`...)
			b = appendString(b, f.Error)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(ev.Decisions) > 0 {
		b = append(b, `,"decisions":[`...)
		for i := range ev.Decisions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendDecision(b, &ev.Decisions[i])
		}
		b = append(b, ']')
	}
	if len(ev.Truncated) > 0 {
		b = append(b, `,"truncated":[`...)
		for i, s := range ev.Truncated {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func appendDecision(b []byte, d *flows.Decision) []byte {
	b = append(b, `{"by":`...)
	b = appendString(b, d.By)
	b = appendField(b, "what", d.What)
	b = append(b, `,"outcome":`...)
	b = appendString(b, d.Outcome)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(d.Duration), 10)
	b = appendField(b, "reason", d.Reason)
	return append(b, '}')
}

// appendField appends `,"name":"value"`, or nothing for an empty value
// (omitempty).
func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as json.Marshal escapes
// it: quote, backslash and control characters; <, > and & (for HTML);
// U+2028 and U+2029 (for JavaScript); invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
