package framework

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The compiled pass is checked against the reference path it stands in
// for (applyInput, applyOutput): on every input, it either gives up or
// agrees byte for byte, and it never accepts what the reference refuses.
// (An internal test: the reference path is unexported.)

type compiledIn struct {
	Name  string            `json:"name"`
	N     int               `json:"n"`
	F     float64           `json:"f,omitempty"`
	Tags  []string          `json:"tags,omitempty"`
	Opt   *bool             `json:"opt,omitempty"`
	Attrs map[string]string `json:"attrs,omitempty"`
	Inner *struct {
		A int    `json:"a"`
		B string `json:"b,omitempty"`
	} `json:"inner,omitempty"`
	Any any `json:"any,omitempty"`
}

var compiledInputs = []string{
	``, ` `, `null`, ` null `, `{}`, `[]`, `1`, `"x"`, `{`, `{"name":"a"}`,
	`{"name":"a","n":1}`, `{"n":1,"name":"a"}`, ` { "name" : "a" , "n" : 1 } `,
	`{"name":"a","n":1.0}`, `{"name":"a","n":1e2}`, `{"name":"a","n":1.5}`, `{"name":"a","n":-0}`,
	`{"name":"a","n":12345678901234567890}`, `{"name":"a","n":1e400}`, `{"name":"a","n":01}`,
	`{"name":"a","n":1,"f":0.1}`, `{"name":"a","n":1,"f":1e-7}`, `{"name":"a","n":1,"f":1E+21}`, `{"name":"a","n":1,"f":-2.50}`,
	`{"name":"a","n":1,"x":1}`, `{"name":"a","n":1,"name":"b"}`, `{"name":null,"n":1}`, `{"name":1,"n":1}`,
	`{"name":"a<b>&c","n":1}`, `{"name":"\u00e9\n\"q\"","n":1}`, `{"name":"é","n":1}`, `{"name":"\u2028","n":1}`,
	"{\"name\":\"\xff\",\"n\":1}", "{\"name\":\"\u2028\",\"n\":1}", `{"name":"\ud800","n":1}`, `{"name":"a\q","n":1}`,
	`{"na\u006de":"a","n":1}`, `{"Name":"a","n":1}`,
	`{"name":"a","n":1,"tags":["x","y"]}`, `{"name":"a","n":1,"tags":null}`, `{"name":"a","n":1,"tags":[1]}`, `{"name":"a","n":1,"tags":[]}`,
	`{"name":"a","n":1,"opt":true}`, `{"name":"a","n":1,"opt":null}`, `{"name":"a","n":1,"opt":"yes"}`,
	`{"name":"a","n":1,"attrs":{"z":"1","a":"2"}}`, `{"name":"a","n":1,"attrs":{"z":1}}`, `{"name":"a","n":1,"attrs":{"k":"1","k":"2"}}`,
	`{"name":"a","n":1,"inner":{"a":1}}`, `{"name":"a","n":1,"inner":{"b":"x"}}`, `{"name":"a","n":1,"inner":{"b":"x","a":2}}`, `{"name":"a","n":1,"inner":{"a":1,"c":2}}`,
	`{"name":"a","n":1,"any":{"z":[1,{"y":2,"x":1.50}],"a":null}}`, `{"name":"a","n":1,"any":[true,false,null]}`,
	`{"name":"a","n":1} x`, `{"name":"a","n":1}}`, `{"name":"a" "n":1}`, `{"name":"a",}`, `{"name":"a","n":tru}`,
}

func compiledSchemas(t testing.TB) map[string]*jsonschema.Schema {
	in, err := jsonschema.For[compiledIn](nil)
	if err != nil {
		t.Fatal(err)
	}
	var given jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"name":{"type":"string","description":"d"},"n":{"type":["integer","null"]}},"required":["name"]}`), &given); err != nil {
		t.Fatal(err)
	}
	return map[string]*jsonschema.Schema{
		"inferred": in,
		"given":    &given,
		"object":   {Type: "object"},
		"map":      {Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"}},
	}
}

func checkCompiled(t *testing.T, name string, s *jsonschema.Schema, input []byte) {
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	c := compile(s)
	if c == nil {
		t.Fatalf("%s: not compiled", name)
	}
	want, wantErr := applyInput(input, r)
	got, ok := c.canonical(input, true)
	if ok && (wantErr != nil || !bytes.Equal(got, want)) {
		t.Errorf("%s, input %q: compiled %s; reference %s, %v", name, input, got, want, wantErr)
	}
	if len(input) > 0 && string(bytes.TrimSpace(input)) != "null" {
		want, wantErr := applyOutput(input, r)
		got, ok := c.canonical(input, false)
		if ok && (wantErr != nil || !bytes.Equal(got, want)) {
			t.Errorf("%s, output %q: compiled %s; reference %s, %v", name, input, got, want, wantErr)
		}
	}
}

func TestCompiledAgreesWithReference(t *testing.T) {
	accepted := 0
	for name, s := range compiledSchemas(t) {
		for _, in := range compiledInputs {
			checkCompiled(t, name, s, []byte(in))
			if _, ok := compile(s).canonical([]byte(in), true); ok {
				accepted++
			}
		}
	}
	if accepted < 40 {
		t.Errorf("the compiled pass decided only %d inputs on its own", accepted)
	}
}

func TestCompileRefuses(t *testing.T) {
	min := 1.0
	for _, s := range []*jsonschema.Schema{
		{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "integer", Minimum: &min}}},
		{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "string", Default: json.RawMessage(`"x"`)}}},
		{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Enum: []any{"x"}}}},
		{Type: "object", Ref: "#/$defs/x"},
		{Type: "object", Schema: "http://example.com/other"},
	} {
		if compile(s) != nil {
			t.Errorf("compiled %+v", s)
		}
	}
}

func FuzzCompiled(f *testing.F) {
	for _, in := range compiledInputs {
		f.Add([]byte(in))
	}
	schemas := compiledSchemas(f)
	f.Fuzz(func(t *testing.T, input []byte) {
		for name, s := range schemas {
			checkCompiled(t, name, s, input)
		}
	})
}
