package yamlconf_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/yamlconf"
)

// TestErrorPosition checks the form of a configuration error: at
// file:line:col, or at file:line when the column is unknown rather than at
// a made-up column.
func TestErrorPosition(t *testing.T) {
	for _, tc := range []struct {
		err  yamlconf.Error
		want string
	}{
		{yamlconf.Error{File: "g.yaml", Line: 3, Col: 7, Msg: "m"}, "g.yaml:3:7: m"},
		{yamlconf.Error{File: "g.yaml", Line: 3, Msg: "m"}, "g.yaml:3: m"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%+v.Error() = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// level is a custom scalar: "low" or "high".
type level int

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("want low or high, got %q", b)}
	}
	return nil
}

type rule struct {
	User  string `yaml:"user"`
	Level level  `yaml:"level"`
}

type config struct {
	Every  time.Duration     `yaml:"every"`
	Rules  []rule            `yaml:"rules"`
	Tools  map[string]level  `yaml:"tools"`
	Limit  *int              `yaml:"limit"`
	Extra  map[string]any    `yaml:"extra"`
	Hidden func()            `yaml:"-"`
	Nested struct{ On bool } `yaml:"nested"`
	Untag  string            // not settable from a file
	Labels map[string]string `yaml:"labels"`
}

// Validate reports errors at the paths the test's files spell.
func (c config) Validate() error {
	var errs []error
	for i, r := range c.Rules {
		if r.User == "" {
			errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: fmt.Sprintf("rules[%d].user", i), Msg: "must not be empty"})
		}
	}
	if c.Tools["slow"] == 1 {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: "tools.slow", Msg: "must be high"})
	}
	if c.Every > time.Hour {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Msg: "every is too long"})
	}
	if c.Limit != nil && *c.Limit > 9 {
		errs = append(errs, errors.New("a plain error"))
	}
	return errors.Join(errs...)
}

// TestSection decodes sections into a Config and checks each error's
// position and text: unknown keys with a hint, durations, scalars through
// UnmarshalText, and Validate's errors at the node their Field names.
func TestSection(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
		check      func(*testing.T, config)
	}{
		{"valid", "p:\n  every: 5s\n  rules: [{user: a, level: high}]\n  tools: {slow: high}\n  limit: 3\n  extra: {a: [1, 2]}\n  labels: {x: y}\n", nil, func(t *testing.T, c config) {
			if c.Every != 5*time.Second || c.Rules[0] != (rule{"a", 2}) || c.Tools["slow"] != 2 || *c.Limit != 3 || c.Extra["a"] == nil || c.Labels["x"] != "y" {
				t.Errorf("decoded %+v", c)
			}
		}},
		{"empty section", "p:\n", nil, nil},
		{"unknown key", "p:\n  evry: 5s\n", []string{`f.yaml:2:3: unknown key "evry" in p (did you mean "every"?) (known: every, extra, labels, limit, nested, rules, tools)`}, nil},
		{"untagged field", "p:\n  untag: x\n", []string{`f.yaml:2:3: unknown key "untag" in p (known: `}, nil},
		{"hidden field", "p:\n  hidden: x\n", []string{`f.yaml:2:3: unknown key "hidden" in p (known: every,`}, nil},
		{"unknown key in a list item", "p:\n  rules:\n    - {user: a, levl: low}\n", []string{`f.yaml:3:17: unknown key "levl" in rules (did you mean "level"?)`}, nil},
		{"bad duration", "p: {every: soon}\n", []string{`f.yaml:1:12: want a duration such as 30s or 1m, got "soon"`}, nil},
		{"bad custom scalar", "p: {tools: {slow: medium}}\n", []string{`f.yaml:1:19: want low or high, got "medium"`}, nil},
		{"custom scalar not a scalar", "p: {rules: [{level: [high]}]}\n", []string{`f.yaml:1:21: want a value such as level, got a list`}, nil},
		{"not a list", "p: {rules: {user: a}}\n", []string{`f.yaml:1:12: want a list, got a mapping`}, nil},
		{"not an integer", "p: {limit: many}\n", []string{`f.yaml:1:12: want an integer, got "many"`}, nil},
		{"key twice", "p: {every: 1s, every: 2s}\n", []string{`f.yaml:1:16: key "every" is given twice`}, nil},
		{"validate at a list item's field", "p:\n  rules:\n    - {level: low}\n    - {user: '', level: low}\n", []string{
			`f.yaml:3:7: p rules[0].user: must not be empty`, // no user key: the item
			`f.yaml:4:14: p rules[1].user: must not be empty`,
		}, nil},
		{"validate at a map entry", "p:\n  tools:\n    slow: low\n", []string{`f.yaml:3:11: p tools.slow: must be high`}, nil},
		{"validate without a field", "p:\n  every: 2h\n", []string{`f.yaml:2:3: p: every is too long`}, nil},
		{"validate with a plain error", "p: {limit: 10}\n", []string{`f.yaml:1:4: p: a plain error`}, nil},
		{"nested struct", "p: {nested: {on: true}}\n", []string{`f.yaml:1:14: unknown key "on" in nested`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.yaml), &doc); err != nil {
				t.Fatal(err)
			}
			root := doc.Content[0]
			d := &yamlconf.Decoder{File: "f.yaml"}
			var c config
			ok := d.Section(root.Content[1], "p", "p", &c)
			err := d.Err()
			if ok != (err == nil) {
				t.Errorf("Section = %v with errors %v", ok, err)
			}
			if len(tc.want) == 0 && err != nil {
				t.Fatalf("errors:\n%v", err)
			}
			if len(tc.want) > 0 && err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors:\n%v\nwant one containing %q", err, w)
				}
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

// hosted is a configuration with a path relative to the file and a check
// of the machine.
type hosted struct {
	Dir   string `yaml:"dir" path:"relative"`
	Other string `yaml:"other"`
	Sink  sink   `yaml:"sink"`
}

// sink is a struct with a short form, "stderr" or a path, as audit's file.
type sink struct {
	Path   string `yaml:"path" path:"relative"`
	Stderr bool   `yaml:"-"`
}

func (s *sink) UnmarshalText(b []byte) error {
	if string(b) == "stderr" {
		*s = sink{Stderr: true}
	} else {
		*s = sink{Path: string(b)}
	}
	return nil
}

func (h hosted) CheckHost() error {
	if h.Other == "missing" {
		return &flows.Error{Code: flows.CodeInvalid, Field: "other", Msg: "not on this machine"}
	}
	return nil
}

// TestSectionPathsAndHost checks that a field tagged path:"relative" is
// resolved against the file's directory (an absolute one is kept, an
// untagged one is not touched), and that CheckHost runs only when the
// Decoder checks the host, its errors at their fields.
func TestSectionPathsAndHost(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		host       bool
		want       hosted
		err        string
	}{
		{"relative", "dir: bin\nother: bin\n", false, hosted{Dir: "/etc/hf/bin", Other: "bin"}, ""},
		{"absolute", "dir: /opt/bin\n", false, hosted{Dir: "/opt/bin"}, ""},
		{"relative, in a short form", "sink: out.log\n", false, hosted{Sink: sink{Path: "/etc/hf/out.log"}}, ""},
		{"relative, in a mapping", "sink: {path: out.log}\n", false, hosted{Sink: sink{Path: "/etc/hf/out.log"}}, ""},
		{"not a path, in a short form", "sink: stderr\n", false, hosted{Sink: sink{Stderr: true}}, ""},
		{"host not checked", "other: missing\n", false, hosted{Other: "missing"}, ""},
		{"host checked", "dir: x\nother: missing\n", true, hosted{Dir: "/etc/hf/x", Other: "missing"}, "/etc/hf/g.yaml:2:8: s other: not on this machine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.yaml), &doc); err != nil {
				t.Fatal(err)
			}
			d := &yamlconf.Decoder{File: "/etc/hf/g.yaml", Host: tc.host}
			var got hosted
			d.Section(doc.Content[0], "s", "s", &got)
			if got != tc.want {
				t.Errorf("decoded %+v, want %+v", got, tc.want)
			}
			if err := d.Err(); fmt.Sprint(err) != tc.err && !(err == nil && tc.err == "") {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// aging is a configuration with deprecated keys: one alone, one whose
// env key is the new way.
type aging struct {
	Old    string `yaml:"old" deprecated:"use new"`
	New    string `yaml:"new"`
	Secret string `yaml:"secret" env:"secret_env" deprecated:"name an environment variable with secret_env"`
	List   []struct {
		Token string `yaml:"token" deprecated:"use token_env"`
	} `yaml:"list"`
}

// TestDeprecated checks that a deprecated key still sets its field, is
// no error, and is warned about at its file:line:col, in the order of the
// file; its env key is not deprecated.
func TestDeprecated(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
		check      func(aging) bool
	}{
		{"new keys", "new: x\nsecret_env: S\n", nil, func(a aging) bool { return a.New == "x" && a.Secret == "from env" }},
		{"old key", "new: y\nold: x\n", []string{"g.yaml:2:1: old is deprecated: use new"}, func(a aging) bool { return a.Old == "x" }},
		{"secret inline", "secret: s\n", []string{"g.yaml:1:1: secret is deprecated: name an environment variable with secret_env"}, func(a aging) bool { return a.Secret == "s" }},
		{"in a list, in file order", "list:\n  - {token: a}\n  - token: b\nold: x\n", []string{
			"g.yaml:2:6: list[0].token is deprecated: use token_env",
			"g.yaml:3:5: list[1].token is deprecated: use token_env",
			"g.yaml:4:1: old is deprecated: use new",
		}, func(a aging) bool { return len(a.List) == 2 && a.List[1].Token == "b" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &yamlconf.Decoder{File: "g.yaml", Getenv: func(string) string { return "from env" }}
			var a aging
			if err := d.Document([]byte(tc.yaml), "the configuration", &a); err != nil {
				t.Fatalf("error %v: a deprecated key is no error", err)
			}
			var got []string
			for _, w := range d.Warnings() {
				got = append(got, w.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if !tc.check(a) {
				t.Errorf("decoded %+v", a)
			}
		})
	}
}
