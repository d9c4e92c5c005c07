package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// node is a JSON value with the byte offset where it starts, so that a
// settings error can say file:line:col. Objects keep their keys in order.
type node struct {
	kind byte // '{' object, '[' array, '"' string, '0' number, 'b' bool, 'n' null
	off  int
	str  string
	num  json.Number
	b    bool
	keys []string
	koff []int // offsets of the keys
	vals []*node
}

// kindName names a node kind for error messages.
func (n *node) kindName() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}

// get returns the value of key in an object node, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// parseJSON reads one JSON value with positions.
func parseJSON(data []byte) (*node, error) {
	p := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, &posError{off: p.start(), msg: "unexpected data after the settings object"}
	}
	return n, nil
}

type jsonParser struct {
	data []byte
	dec  *json.Decoder
}

// posError is a parse error at a byte offset.
type posError struct {
	off int
	msg string
}

func (e *posError) Error() string { return e.msg }

// start returns the offset of the next token: the decoder's offset is the
// end of the previous one, before whitespace and separators.
func (p *jsonParser) start() int {
	i := int(p.dec.InputOffset())
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\r', '\n', ':', ',':
			i++
			continue
		}
		break
	}
	return i
}

func (p *jsonParser) token() (json.Token, int, error) {
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, int(se.Offset), &posError{off: int(se.Offset), msg: "invalid JSON: " + se.Error()}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, len(p.data), &posError{off: len(p.data), msg: "invalid JSON: unexpected end of file"}
		}
		return nil, off, &posError{off: off, msg: "invalid JSON: " + err.Error()}
	}
	return tok, off, nil
}

func (p *jsonParser) value() (*node, error) {
	tok, off, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.valueFrom(tok, off)
}

func (p *jsonParser) valueFrom(tok json.Token, off int) (*node, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: '{', off: off}
			for p.dec.More() {
				ktok, koff, err := p.token()
				if err != nil {
					return nil, err
				}
				key, _ := ktok.(string)
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				if n.get(key) != nil {
					return nil, &posError{off: koff, msg: fmt.Sprintf("key %q appears twice", key)}
				}
				n.keys, n.koff, n.vals = append(n.keys, key), append(n.koff, koff), append(n.vals, v)
			}
			_, _, err := p.token() // '}'
			return n, err
		case '[':
			n := &node{kind: '[', off: off}
			for p.dec.More() {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			_, _, err := p.token() // ']'
			return n, err
		}
	case string:
		return &node{kind: '"', off: off, str: t}, nil
	case json.Number:
		return &node{kind: '0', off: off, num: t}, nil
	case bool:
		return &node{kind: 'b', off: off, b: t}, nil
	case nil:
		return &node{kind: 'n', off: off}, nil
	}
	return nil, &posError{off: off, msg: fmt.Sprintf("invalid JSON token %v", tok)}
}

// lineCol returns the 1-based line and column (in bytes) of off in data.
func lineCol(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off + 1
	if i := bytes.LastIndexByte(data[:off], '\n'); i >= 0 {
		col = off - i
	}
	return line, col
}

// value returns n as encoding/json would decode it (numbers as
// json.Number).
func (n *node) value() any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.vals[i].value()
		}
		return m
	case '[':
		a := make([]any, len(n.vals))
		for i, v := range n.vals {
			a[i] = v.value()
		}
		return a
	case '"':
		return n.str
	case '0':
		return n.num
	case 'b':
		return n.b
	}
	return nil
}
