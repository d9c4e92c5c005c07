package framework

import (
	"bytes"
	"slices"
)

// canonical validates data against c and returns its canonical form, or
// false when the reference path must decide. With args (tool arguments),
// missing or null data is {}. The result is data itself when data is
// canonical.
func (c *compiled) canonical(data []byte, args bool) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	if len(data) == 0 || string(bytes.TrimSpace(data)) == "null" {
		if !args || c.required != 0 || c.types != 0 && c.types&jsonObject == 0 {
			return nil, false
		}
		return []byte("{}"), true
	}
	p := c.passes.Get().(*pass)
	defer func() {
		if cap(p.out) > 1<<16 || cap(p.tmp) > 1<<16 || cap(p.members) > 1<<12 {
			p.out, p.tmp, p.members = nil, nil, nil // do not keep large buffers
		}
		p.in = nil
		c.passes.Put(p)
	}()
	// The canonical form is about as long as data: one allocation when
	// the recycled buffer is short.
	p.in, p.i, p.out, p.members = data, 0, slices.Grow(p.out[:0], len(data)), p.members[:0]
	if !p.value(c, 0) {
		return nil, false
	}
	if p.skip(); p.i != len(p.in) {
		return nil, false
	}
	if bytes.Equal(p.out, data) { // no space around: canonical already
		return data, true
	}
	return bytes.Clone(p.out), true
}

// pass is the state of one compiled pass; passes recycles them.
type pass struct {
	in      []byte
	i       int
	out     []byte
	tmp     []byte
	members []member
}

// member is an object member written to pass.out: the key (without
// quotes) at out[key0:key1], the whole member at out[start:end].
type member struct{ start, key0, key1, end int }

func (p *pass) skip() {
	for p.i < len(p.in) {
		switch p.in[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func allows(c *compiled, t uint8) bool { return c == nil || c.types == 0 || c.types&t != 0 }

// value checks the value at p.i against c and appends its canonical form.
func (p *pass) value(c *compiled, depth int) bool {
	if depth > maxDepth {
		return false
	}
	p.skip()
	if p.i >= len(p.in) {
		return false
	}
	switch b := p.in[p.i]; {
	case b == '{':
		return allows(c, jsonObject) && p.object(c, depth)
	case b == '[':
		return allows(c, jsonArray) && p.array(c, depth)
	case b == '"':
		return allows(c, jsonString) && p.str()
	case b == 't':
		return allows(c, jsonBoolean) && p.literal("true")
	case b == 'f':
		return allows(c, jsonBoolean) && p.literal("false")
	case b == 'n':
		return allows(c, jsonNull) && p.literal("null")
	case b == '-' || b >= '0' && b <= '9':
		return p.number(c)
	}
	return false
}

// object checks the object at p.i against c and appends its canonical
// form: its members in key order, each required property present.
func (p *pass) object(c *compiled, depth int) bool {
	p.i++ // {
	p.out = append(p.out, '{')
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	seen, ok := p.memberList(c, depth, base)
	if !ok || c != nil && seen != c.required || !p.sortMembers(base) {
		return false
	}
	p.out = append(p.out, '}')
	return true
}

// memberList reads an object's members up to its closing brace, appending
// each to p.out and p.members, and returns the required bits of the
// properties it met.
func (p *pass) memberList(c *compiled, depth, base int) (seen uint64, ok bool) {
	p.skip()
	if p.i < len(p.in) && p.in[p.i] == '}' {
		p.i++
		return 0, true
	}
	for {
		p.skip()
		if len(p.members) > base {
			p.out = append(p.out, ',')
		}
		bit, ok := p.member(c, depth)
		if !ok {
			return 0, false
		}
		seen |= bit
		p.skip()
		if p.i >= len(p.in) {
			return 0, false
		}
		switch p.in[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return seen, true
		default:
			return 0, false
		}
	}
}

// member reads one member at p.i, its key, colon and value, checks the
// value against the schema c gives its key, and records it in p.members;
// it returns the key's required bit.
func (p *pass) member(c *compiled, depth int) (reqBit uint64, ok bool) {
	m := member{start: len(p.out), key0: len(p.out) + 1}
	// Keys are taken as they are: an escaped key leaves the decision to
	// the reference path.
	if p.i >= len(p.in) || p.in[p.i] != '"' {
		return 0, false
	}
	end := p.i + 1
	for end < len(p.in) && p.in[end] != '"' {
		if b := p.in[end]; b == '\\' || b < 0x20 || needsCare(b) {
			return 0, false
		}
		end++
	}
	if end >= len(p.in) {
		return 0, false
	}
	key := p.in[p.i+1 : end]
	p.out = append(p.out, p.in[p.i:end+1]...)
	m.key1 = len(p.out) - 1
	p.i = end + 1
	p.skip()
	if p.i >= len(p.in) || p.in[p.i] != ':' {
		return 0, false
	}
	p.i++
	p.out = append(p.out, ':')
	var sub *compiled
	if c != nil {
		pr, declared := c.props[string(key)]
		switch {
		case declared:
			sub, reqBit = pr.schema, pr.reqBit
		case c.noExtra:
			return 0, false
		default:
			sub = c.extra
		}
	}
	if !p.value(sub, depth+1) {
		return 0, false
	}
	m.end = len(p.out)
	if len(p.members) == cap(p.members) { // double, not append's 1.25
		p.members = slices.Grow(p.members, len(p.members)+8)
	}
	p.members = append(p.members, m)
	return reqBit, true
}

// sortMembers puts the object's members, from members[base:], in key
// order, as encoding/json writes a map. A duplicate key is the reference
// path's to decide.
func (p *pass) sortMembers(base int) bool {
	ms := p.members[base:]
	sorted := true
	for i := 1; i < len(ms); i++ {
		switch bytes.Compare(p.key(ms[i-1]), p.key(ms[i])) {
		case 0:
			return false
		case 1:
			sorted = false
		}
	}
	if sorted {
		return true
	}
	// The members were written in input order, the first one first.
	start := ms[0].start
	// O(n log n) whatever the order: a peer picks the order of the keys.
	// Keys are compared as bytes, as Go compares the strings of a map's
	// keys; equal keys make the order of their members moot, since the
	// reference path then decides.
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(p.key(a), p.key(b)) })
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(p.key(ms[i-1]), p.key(ms[i])) {
			return false
		}
	}
	p.tmp = slices.Grow(p.tmp[:0], len(p.out)-start)
	for i, m := range ms {
		if i > 0 {
			p.tmp = append(p.tmp, ',')
		}
		p.tmp = append(p.tmp, p.out[m.start:m.end]...)
	}
	p.out = append(p.out[:start], p.tmp...)
	return true
}

func (p *pass) key(m member) []byte { return p.out[m.key0:m.key1] }

func (p *pass) array(c *compiled, depth int) bool {
	p.i++ // [
	p.out = append(p.out, '[')
	var items *compiled
	if c != nil {
		items = c.items
	}
	p.skip()
	if p.i < len(p.in) && p.in[p.i] == ']' {
		p.i++
		p.out = append(p.out, ']')
		return true
	}
	for n := 0; ; n++ {
		if n > 0 {
			p.out = append(p.out, ',')
		}
		if !p.value(items, depth+1) {
			return false
		}
		p.skip()
		if p.i >= len(p.in) {
			return false
		}
		switch p.in[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.out = append(p.out, ']')
			return true
		default:
			return false
		}
	}
}
