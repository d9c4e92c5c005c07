package framework

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// literal appends lit, the true, false or null at p.i.
func (p *pass) literal(lit string) bool {
	if !bytes.HasPrefix(p.in[p.i:], []byte(lit)) {
		return false
	}
	p.i += len(lit)
	p.out = append(p.out, lit...)
	return true
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
