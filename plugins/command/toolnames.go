package command

import (
	"encoding/json"
	"maps"

	"github.com/hookflow/hookflow/plugins/command/settings"
)

// toolMap is a hook's view of the server's tools: its own ToolNames over
// the configuration's.
type toolMap settings.ToolNames

func newToolMap(cfg, own settings.ToolNames) toolMap {
	if len(cfg) == 0 && len(own) == 0 {
		return nil
	}
	m := maps.Clone(cfg)
	if m == nil {
		m = settings.ToolNames{}
	}
	maps.Copy(m, own)
	return toolMap(m)
}

// name returns the script's name of tool, ok false when it is not mapped.
func (m toolMap) name(tool string) (string, bool) {
	tn, ok := m[tool]
	return tn.Name, ok
}

// input renames the top-level keys of args (a JSON object) for the
// script; args is returned as it is when nothing is renamed.
func (m toolMap) input(tool string, args json.RawMessage) json.RawMessage {
	return rename(args, m[tool].Arguments)
}

// output renames a script's updatedInput back to the tool's names.
func (m toolMap) output(tool string, args json.RawMessage) json.RawMessage {
	back := map[string]string{}
	for from, to := range m[tool].Arguments {
		back[to] = from
	}
	return rename(args, back)
}

func rename(args json.RawMessage, names map[string]string) json.RawMessage {
	if len(names) == 0 {
		return args
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return args
	}
	// A renamed argument wins over one that had its new name.
	out := make(map[string]json.RawMessage, len(obj))
	for k, v := range obj {
		if _, ok := names[k]; !ok {
			out[k] = v
		}
	}
	for k, v := range obj {
		if to, ok := names[k]; ok {
			out[to] = v
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return args
	}
	return b
}
