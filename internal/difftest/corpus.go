package difftest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Case is one line of a corpus: the steps of one exchange, sent in order
// to a fresh pair of handlers on each of its legs.
type Case struct {
	// Name names the case in failures; unique in its corpus.
	Name string `json:"name"`
	// Legs are the servers the case runs on, "stateful" and "stateless";
	// none: both.
	Legs []string `json:"legs,omitempty"`
	// Server names the server the target builds ("" its default).
	Server string `json:"server,omitempty"`
	// Init, when set, opens a session with that protocol version before
	// the steps (initialize, then notifications/initialized): its
	// Mcp-Session-Id is $session, and every step sends it and
	// MCP-Protocol-Version: Init unless its headers say otherwise.
	Init string `json:"init,omitempty"`
	// User, when set, makes every request send Authorization: Bearer
	// User, and $other name a session that user "other" opened.
	User string `json:"user,omitempty"`
	// Steps are the case's requests; none: the case's own Step is its
	// only one.
	Steps []Step `json:"steps,omitempty"`
	Step
	// Differs are the ids of the rows of deliberate differences the case
	// shows: each must explain a difference on one of its steps.
	Differs []string `json:"differs,omitempty"`
}

// Step is one HTTP request.
type Step struct {
	// Method is the HTTP method; "": POST.
	Method string `json:"method,omitempty"`
	// Headers are set over the defaults (Accept: application/json,
	// text/event-stream; Content-Type: application/json on a POST; the
	// case's session, version and user); null removes one. In values,
	// $session and $other stand for the sessions of the case, $sN for the
	// Nth session the leg opened.
	Headers map[string]*string `json:"headers,omitempty"`
	// JSON is the body, byte for byte as written (numbers too).
	JSON json.RawMessage `json:"json,omitempty"`
	// Body is the body as text, for one that JSON cannot hold.
	Body *string `json:"body,omitempty"`
}

// steps returns the case's steps.
func (c *Case) steps() []Step {
	if len(c.Steps) > 0 {
		return c.Steps
	}
	return []Step{c.Step}
}

// runsOn reports whether the case runs on leg.
func (c *Case) runsOn(leg string) bool { return len(c.Legs) == 0 || slices.Contains(c.Legs, leg) }

// body returns the step's body, nil for none.
func (s *Step) body() []byte {
	if s.Body != nil {
		return []byte(*s.Body)
	}
	return s.JSON
}

// Load reads a corpus: JSON lines, each a Case; blank lines and lines
// starting with # are skipped. Unknown fields and duplicate names are
// errors.
func Load(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse reads a corpus from data (see Load); name prefixes its errors.
func Parse(data []byte, name string) ([]Case, error) {
	var cases []Case
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var c Case
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if c.Name == "" || seen[c.Name] {
			return nil, fmt.Errorf("%s:%d: a case needs a name of its own, got %q", name, n, c.Name)
		}
		seen[c.Name] = true
		for _, l := range c.Legs {
			if l != Stateful && l != Stateless {
				return nil, fmt.Errorf("%s:%d: leg %q: want %s or %s", name, n, l, Stateful, Stateless)
			}
		}
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

// The legs: the same server with sessions and without.
const (
	Stateful  = "stateful"
	Stateless = "stateless"
)

// expand replaces each $name in v whose name (letters and digits) vars
// holds by its value.
func expand(v string, vars map[string]string) string {
	if !strings.Contains(v, "$") {
		return v
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(v, '$')
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		j := i + 1
		for j < len(v) && (v[j] >= 'a' && v[j] <= 'z' || v[j] >= '0' && v[j] <= '9') {
			j++
		}
		if val, ok := vars[v[i+1:j]]; ok {
			b.WriteString(val)
		} else {
			b.WriteString(v[i:j])
		}
		v = v[j:]
	}
}
