package declared

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Vars are the values of the template variables at one firing. A variable
// without a value (no tool outside tool events, no output before the call,
// an empty project name or session ID) is left as written, like a variable
// the SEP does not define: clients pass unknown variables through
// unchanged, for forward compatibility.
type Vars struct {
	// ProjectName is {project_name}: the project or workspace.
	ProjectName string
	// SessionID is {session_id}: the agent session.
	SessionID string
	// Tool gives {tool_name}, {tool_input} and {tool_output} (the call's
	// Name, Input and Output); nil outside tool events.
	Tool *ToolCall
}

// The template variables of SEP-2282.
const (
	VarProjectName = "project_name"
	VarToolName    = "tool_name"
	VarToolInput   = "tool_input"
	VarToolOutput  = "tool_output"
	VarSessionID   = "session_id"
)

// value returns the variable's value, and false when it has none.
func (v *Vars) value(name string) (string, bool) {
	switch name {
	case VarProjectName:
		return v.ProjectName, v.ProjectName != ""
	case VarSessionID:
		return v.SessionID, v.SessionID != ""
	}
	if v.Tool == nil {
		return "", false
	}
	switch name {
	case VarToolName:
		return v.Tool.Name, v.Tool.Name != ""
	case VarToolInput:
		return string(v.Tool.Input), len(v.Tool.Input) > 0
	case VarToolOutput:
		return string(v.Tool.Output), len(v.Tool.Output) > 0
	}
	return "", false
}

// Expand substitutes the template variables of s: each {name} with a value
// in v is replaced by it; anything else, unknown names and unbalanced
// braces included, is kept as written. Substituted text is not expanded
// again.
func Expand(s string, v Vars) string {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		end := strings.IndexByte(s, '}')
		if end < 0 {
			break
		}
		if val, ok := v.value(s[1:end]); ok {
			b.WriteString(val)
			s = s[end+1:]
		} else {
			b.WriteByte('{')
			s = s[1:]
		}
		i = strings.IndexByte(s, '{')
	}
	b.WriteString(s)
	return b.String()
}

// ExpandArgs expands the template variables of every string value of the
// JSON object args (at any depth), as [Expand] does; keys, numbers and the
// object's shape are kept (object keys come out sorted). Empty args are
// returned as they are.
func ExpandArgs(args json.RawMessage, v Vars) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var val any
	if err := dec.Decode(&val); err != nil {
		return nil, err
	}
	return json.Marshal(expandValue(val, v))
}

func expandValue(x any, v Vars) any {
	switch x := x.(type) {
	case string:
		return Expand(x, v)
	case map[string]any:
		for k, e := range x {
			x[k] = expandValue(e, v)
		}
	case []any:
		for i, e := range x {
			x[i] = expandValue(e, v)
		}
	}
	return x
}
