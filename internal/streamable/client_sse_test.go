package streamable

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestSSEParser checks the event stream interpretation on the cases the
// HTML standard spells out.
func TestSSEParser(t *testing.T) {
	type ev struct {
		name, data, id string
		retry          time.Duration
	}
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"one event", "data: {}\n\n", []ev{{data: "{}"}}},
		{"CRLF and CR line ends", "data: a\r\ndata: b\rdata:c\r\n\r\n", []ev{{data: "a\nb\nc"}}},
		{"comments and unknown fields", ": hi\nfoo: bar\ndata: x\n\n", []ev{{data: "x"}}},
		{"one leading space removed", "data:  two\n\n", []ev{{data: " two"}}},
		{"a field without colon: data, empty", "data\n\n", []ev{{}}},
		{"event name, id and retry", "event: message\nid: 7\nretry: 1500\ndata: x\n\n", []ev{{name: "message", data: "x", id: "7", retry: 1500 * time.Millisecond}}},
		{"the id carries over, a bad retry is ignored", "id: 1\ndata: a\n\nretry: 5x\ndata: b\n\n", []ev{{data: "a", id: "1"}, {data: "b", id: "1"}}},
		{"an id with NUL is ignored", "id: a\x00b\ndata: a\n\n", []ev{{data: "a"}}},
		{"no data: no event", "event: x\nid: 3\n\ndata: y\n\n", []ev{{data: "y", id: "3"}}},
		{"an unfinished event is dropped", "data: a\n\ndata: b\n", []ev{{data: "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newSSEParser(strings.NewReader(tt.in), 0)
			var got []ev
			for {
				e, err := p.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev{e.name, string(e.data), e.id, e.retry})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("events %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("event %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestSSEParserBounds checks that a line or an event over the bound
// fails the stream before more than the bound is held.
func TestSSEParserBounds(t *testing.T) {
	const max = 100
	for _, in := range []string{
		"data: " + strings.Repeat("x", 10*max),                   // one long line, never ended
		strings.Repeat("data: "+strings.Repeat("y", 40)+"\n", 5), // lines within, the event over
		": " + strings.Repeat("c", 10*max) + "\n",                // a long comment
	} {
		p := newSSEParser(strings.NewReader(in), max)
		_, err := p.next()
		if !errors.Is(err, errEventTooLarge) {
			t.Errorf("%.20q...: %v, want errEventTooLarge", in, err)
		}
		if cap(p.line) > 2*max+4096 || cap(p.data) > 2*max {
			t.Errorf("%.20q...: held %d and %d bytes", in, cap(p.line), cap(p.data))
		}
	}
}

// FuzzSSE checks that the parser never panics, never returns an event
// over its bound, and gives the same events however the stream is cut
// into reads.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "id: 1\r\ndata: a\rdata: b\r\n\r\n", ": c\nevent: x\ndata\n\n", "retry: 10\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		const max = 256
		all := func(r io.Reader) []string {
			p := newSSEParser(r, max)
			var out []string
			for {
				e, err := p.next()
				if err != nil {
					return append(out, fmt.Sprint("err:", errors.Is(err, errEventTooLarge), err == io.EOF))
				}
				if len(e.data) > max {
					t.Fatalf("an event of %d bytes, over %d", len(e.data), max)
				}
				out = append(out, e.name+"|"+e.id+"|"+string(e.data))
			}
		}
		whole := all(strings.NewReader(in))
		bytewise := all(&oneByte{in})
		if strings.Join(whole, "\x00") != strings.Join(bytewise, "\x00") {
			t.Fatalf("whole %q, byte by byte %q", whole, bytewise)
		}
	})
}

// oneByte reads a string one byte at a time.
type oneByte struct{ s string }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(o.s) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], o.s = o.s[0], o.s[1:]
	return 1, nil
}
