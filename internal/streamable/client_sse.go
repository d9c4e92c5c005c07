package streamable

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// DefaultMaxEventBytes bounds one server-sent event a client reads (its
// data, and any one line of it) and one JSON response body: what a hostile
// server can make a client hold for one message. It is the SDK's client
// default (16 MiB).
const DefaultMaxEventBytes = 16 << 20

// errEventTooLarge fails a stream whose event (or line) outgrows the bound.
var errEventTooLarge = errors.New("server-sent event too large")

// sseEvent is one dispatched server-sent event. data is a fresh slice the
// parser never reuses: a message decoded from it may point into it.
type sseEvent struct {
	name string
	data []byte
	// id is the stream's last event ID after this event ("" for none
	// yet); retry the reconnection time the stream set, 0 for none.
	id    string
	retry time.Duration
}

// sseParser reads server-sent events as the HTML standard's event stream
// interpretation does: lines end with CRLF, LF or CR; a line starting with
// a colon is a comment; a field name is what precedes the first colon (the
// whole line without one), its value what follows, one leading space
// removed; an empty line dispatches the event; an event not ended by an
// empty line when the stream ends is dropped. Fields other than event,
// data, id and retry are ignored, as is an id containing NUL and a retry
// that is not all digits.
type sseParser struct {
	r   *bufio.Reader
	max int
	// line is the line being read; afterCR is set when the last line
	// ended with CR, so that an LF right after it ends no line.
	line    []byte
	afterCR bool
	// The event being read, and the stream's state.
	name    string
	data    []byte
	hasData bool
	id      string
	retry   time.Duration
}

func newSSEParser(r io.Reader, max int) *sseParser {
	if max <= 0 {
		max = DefaultMaxEventBytes
	}
	p := parsers.Get().(*sseParser)
	p.r.Reset(r)
	p.max = max
	return p
}

// release gives p back for another stream: its reader's buffer and line
// are reused, never the events' data, which messages point into.
func (p *sseParser) release() {
	p.r.Reset(nil)
	if cap(p.line) > 4096 {
		p.line = nil // a long line's room is not kept
	}
	*p = sseParser{r: p.r, line: p.line[:0]}
	parsers.Put(p)
}

// parsers recycles parsers with their 4 KiB read buffer.
var parsers = sync.Pool{New: func() any { return &sseParser{r: bufio.NewReaderSize(nil, 4096)} }}

// next returns the next event, or the stream's error: io.EOF at its end,
// errEventTooLarge (wrapped) when an event or line outgrows the bound.
func (p *sseParser) next() (sseEvent, error) {
	for {
		line, err := p.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !p.hasData {
				p.name = ""
				continue
			}
			ev := sseEvent{name: p.name, data: p.data, id: p.id, retry: p.retry}
			if len(ev.data) > 0 && ev.data[len(ev.data)-1] == '\n' {
				ev.data = ev.data[:len(ev.data)-1]
			}
			p.name, p.data, p.hasData = "", nil, false
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			p.name = string(value)
		case "data":
			if len(p.data)+len(value)+1 > p.max {
				return sseEvent{}, fmt.Errorf("%w: more than %d bytes", errEventTooLarge, p.max)
			}
			if p.data == nil {
				p.data = make([]byte, 0, len(value)+1)
			}
			p.data = append(append(p.data, value...), '\n')
			p.hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				p.id = string(value)
			}
		case "retry":
			if n, err := strconv.ParseUint(string(value), 10, 31); err == nil && len(value) > 0 && value[0] != '+' {
				p.retry = time.Duration(n) * time.Millisecond
			}
		}
	}
}

// readLine returns the next line without its end; it is valid until the
// next call.
func (p *sseParser) readLine() ([]byte, error) {
	p.line = p.line[:0]
	for {
		buf, err := p.r.Peek(1)
		if err != nil {
			if err == io.EOF && len(p.line) > 0 {
				// A last line without its end ends no event: the
				// event is dropped all the same.
				return nil, io.EOF
			}
			return nil, err
		}
		if p.afterCR {
			p.afterCR = false
			if buf[0] == '\n' {
				_, _ = p.r.Discard(1)
				continue
			}
		}
		buf, _ = p.r.Peek(p.r.Buffered())
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			if len(p.line)+len(buf) > p.max {
				return nil, fmt.Errorf("%w: a line of more than %d bytes", errEventTooLarge, p.max)
			}
			p.line = append(p.line, buf...)
			_, _ = p.r.Discard(len(buf))
			continue
		}
		if len(p.line)+i > p.max {
			return nil, fmt.Errorf("%w: a line of more than %d bytes", errEventTooLarge, p.max)
		}
		p.line = append(p.line, buf[:i]...)
		p.afterCR = buf[i] == '\r'
		_, _ = p.r.Discard(i + 1)
		return p.line, nil
	}
}
