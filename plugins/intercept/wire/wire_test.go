package wire_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

func validator(t *testing.T) *wire.Validator {
	t.Helper()
	v, err := wire.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// Go values the package writes are valid messages of the SEP.
func TestMessagesMatchTheSchema(t *testing.T) {
	v := validator(t)
	tests := []struct {
		def string
		val any
	}{
		{wire.DefInterceptor, wire.Interceptor{Name: "pii", Type: wire.Mutation,
			Hooks:        []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Request}, {Events: []string{"*"}, Phase: wire.Response}},
			PriorityHint: wire.HintPerPhase(-100000, 100000), Compat: &wire.Compat{MinProtocol: "2024-11-05"},
			ConfigSchema: json.RawMessage(`{"type":"object","properties":{"patterns":{"type":"array"}}}`)}},
		{wire.DefInterceptor, wire.Interceptor{Name: "audit", Type: wire.Validation, Hooks: []wire.Hook{}, Mode: wire.Audit, FailOpen: true, PriorityHint: wire.Hint(-5)}},
		{wire.DefListParams, wire.ListParams{Event: "tools/call"}},
		{wire.DefListResult, wire.ListResult{Interceptors: []wire.Interceptor{{Name: "a", Type: wire.Validation, Hooks: []wire.Hook{}}}}},
		{wire.DefInvokeParams, wire.InvokeParams{Name: "a", Event: "tools/call", Phase: wire.Request,
			Payload: json.RawMessage(`{"method":"tools/call","params":{"name":"x"}}`), TimeoutMs: 5000,
			Context: &wire.InvocationContext{Principal: &wire.Principal{Type: wire.PrincipalUser, ID: "u1"}, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736",
				SpanID: "00f067aa0ba902b7", Timestamp: "2026-01-02T03:04:05Z", SessionID: "S1"}}},
		{wire.DefValidationResult, wire.Result{Interceptor: "a", Type: wire.Validation, Phase: wire.Request, Valid: ptr(false), Severity: wire.Error,
			Messages:    []wire.Message{{Path: "params.arguments.x", Message: "no", Severity: wire.Error}},
			Suggestions: []wire.Suggestion{{Path: "params.arguments.x", Value: "[REDACTED]"}}, DurationMs: ptr(1.5)}},
		{wire.DefInvokeResult, wire.Result{Interceptor: "a", Type: wire.Validation, Phase: wire.Response, Valid: ptr(true)}},
		{wire.DefMutationResult, wire.Result{Interceptor: "m", Type: wire.Mutation, Phase: wire.Response, Modified: ptr(false), Payload: json.RawMessage(`{"content":[]}`)}},
		{wire.DefInvokeResult, wire.Result{Interceptor: "m", Type: wire.Mutation, Phase: wire.Request, Modified: ptr(true), Payload: json.RawMessage(`null`)}},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.val)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(tt.def, b); err != nil {
			t.Errorf("%s %s: %v", tt.def, b, err)
		}
	}
}

// The schema refuses what the SEP's shapes refuse.
func TestSchemaRefuses(t *testing.T) {
	v := validator(t)
	tests := []struct{ def, json string }{
		{wire.DefInterceptor, `{"name":"a","type":"observability","hooks":[]}`},
		{wire.DefInterceptor, `{"name":"a","type":"validation"}`},
		{wire.DefInterceptor, `{"name":"a","type":"validation","hooks":[{"events":["*"],"phase":"both"}]}`},
		{wire.DefInterceptor, `{"name":"a","type":"mutation","hooks":[],"mode":"enforce"}`},
		{wire.DefInterceptor, `{"name":"a","type":"mutation","hooks":[],"priorityHint":4294967296}`},
		{wire.DefInterceptor, `{"name":"a","type":"mutation","hooks":[],"priorityHint":{"both":1}}`},
		{wire.DefInvokeParams, `{"name":"a","event":"tools/call","phase":"request"}`},
		{wire.DefInvokeParams, `{"name":"a","event":"tools/call","phase":"request","payload":{},"context":{"traceId":"t"}}`},
		{wire.DefInvokeParams, `{"name":"a","event":"tools/call","phase":"request","payload":{},"context":{"timestamp":"t","sessionId":1}}`},
		{wire.DefValidationResult, `{"interceptor":"a","type":"validation","phase":"request"}`},
		{wire.DefMutationResult, `{"interceptor":"a","type":"mutation","phase":"request","modified":true}`},
		{wire.DefInvokeResult, `{"interceptor":"a","type":"validation","phase":"request","valid":true,"payload":{}}`},
		{wire.DefListResult, `{}`},
	}
	for _, tt := range tests {
		if err := v.Validate(tt.def, []byte(tt.json)); err == nil {
			t.Errorf("%s accepted %s", tt.def, tt.json)
		}
	}
}

func TestPriorityHintJSON(t *testing.T) {
	tests := []struct {
		in        string
		req, resp int32
		out       string
	}{
		{`-1000`, -1000, -1000, `-1000`},
		{`{"request":-1000}`, -1000, 0, `{"request":-1000}`},
		{`{"response":1000}`, 0, 1000, `{"response":1000}`},
		{`{"request":-1,"response":2}`, -1, 2, `{"request":-1,"response":2}`},
		{`{}`, 0, 0, `{}`},
	}
	for _, tt := range tests {
		var h wire.PriorityHint
		if err := json.Unmarshal([]byte(tt.in), &h); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if h.For(wire.Request) != tt.req || h.For(wire.Response) != tt.resp {
			t.Errorf("%s: request %d response %d, want %d %d", tt.in, h.For(wire.Request), h.For(wire.Response), tt.req, tt.resp)
		}
		b, err := json.Marshal(h)
		if err != nil || string(b) != tt.out {
			t.Errorf("%s: marshals as %s, %v; want %s", tt.in, b, err, tt.out)
		}
	}
	for _, bad := range []string{`2147483648`, `1.5`, `"1"`, `{"request":"x"}`, `{"response":-2147483649}`} {
		var h wire.PriorityHint
		if err := json.Unmarshal([]byte(bad), &h); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	var nilHint *wire.PriorityHint
	if nilHint.For(wire.Response) != 0 {
		t.Error("a nil hint is 0")
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, event string
		want           bool
	}{
		{"tools/call", "tools/call", true},
		{"tools/call", "tools/list", false},
		{"*", "resources/read", true},
		{"tools/*", "tools/list", true},
		{"tools/*", "toolsx/list", false},
		{"tools/*", "resources/read", false},
		{"/*", "tools/call", false},
	}
	for _, tt := range tests {
		if got := wire.Match(tt.pattern, tt.event); got != tt.want {
			t.Errorf("Match(%q, %q) = %v", tt.pattern, tt.event, got)
		}
	}
	if !wire.IsPattern("*") || !wire.IsPattern("tools/*") || wire.IsPattern("tools/call") {
		t.Error("IsPattern")
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"", "active", "enforce"} {
		if m, err := wire.ParseMode(s); err != nil || m != wire.Active {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if m, err := wire.ParseMode("audit"); err != nil || m != wire.Audit {
		t.Errorf("ParseMode(audit) = %q, %v", m, err)
	}
	if _, err := wire.ParseMode("observe"); err == nil || !strings.Contains(err.Error(), `"observe"`) {
		t.Errorf("ParseMode(observe): %v", err)
	}
	if _, err := wire.ParseType("observability"); err == nil {
		t.Error("ParseType accepted observability")
	}
	if _, err := wire.ParsePhase("both"); err == nil {
		t.Error("ParsePhase accepted both")
	}
	for s, blocks := range map[wire.Severity]bool{wire.Error: true, "": true, "critical": true, wire.Warn: false, wire.Info: false} {
		if s.Blocks() != blocks {
			t.Errorf("Severity(%q).Blocks() = %v", s, !blocks)
		}
	}
}

func TestInterceptorCheck(t *testing.T) {
	good := wire.Interceptor{Name: "a", Type: wire.Validation, Hooks: []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Request}}}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	if !good.Covers("tools/call", wire.Request) || good.Covers("tools/call", wire.Response) || good.Covers("tools/list", wire.Request) {
		t.Error("Covers")
	}
	// Empty hooks, or a hook without events, are legal and match nothing.
	empty := wire.Interceptor{Name: "e", Type: wire.Mutation, Hooks: []wire.Hook{{Phase: wire.Request}}}
	if err := empty.Check(); err != nil || empty.Covers("tools/call", wire.Request) {
		t.Errorf("an interceptor without events: Check() = %v", err)
	}
	bad := wire.Interceptor{Type: "observability", Mode: "observe", Hooks: []wire.Hook{{Phase: "both"}}}
	err := bad.Check()
	for _, want := range []string{"no name", `"observability"`, `"observe"`, `hooks[0]: unknown phase "both"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check() = %v; want it to mention %s", err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	v := validator(t)
	i := &wire.Interceptor{Name: "guard", Type: wire.Validation, Hooks: []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Request}}}
	tests := []struct {
		err  interface{ Error() string }
		code int64
		data string
	}{
		{wire.UnknownName("x"), -32602, `{"name":"x"}`},
		{wire.HookNotAdvertised(i, "resources/read", wire.Request), -32602,
			`{"name":"guard","event":"resources/read","phase":"request","advertisedHooks":[{"events":["tools/call"],"phase":"request"}]}`},
		{wire.Failed("guard", "boom"), -32603, `{"interceptor":"guard","reason":"boom"}`},
		{wire.TimedOut("guard", 50, wire.Response), -32000, `{"phase":"response","interceptor":"guard","reason":"timeout","timeoutMs":50}`},
	}
	for _, tt := range tests {
		e := tt.err.(interface{ Error() string })
		b, _ := json.Marshal(e)
		var got struct {
			Code int64           `json:"code"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.Code != tt.code || string(got.Data) != tt.data {
			t.Errorf("%v: code %d data %s; want %d %s", e, got.Code, got.Data, tt.code, tt.data)
		}
		if err := v.Validate(wire.DefErrorData, got.Data); err != nil {
			t.Error(err)
		}
	}
}

// A descriptor is read in the SEP's shape and in the older drafts': one
// "hook" object, whose phase "both" stands for a request and a response
// hook; "hooks" wins when a descriptor has both. Its mode "enforce" is
// read as active.
func TestDescriptorOlderShapes(t *testing.T) {
	call := []string{"tools/call"}
	tests := []struct {
		name, json string
		want       []wire.Hook
	}{
		{"hooks", `{"name":"a","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]}`,
			[]wire.Hook{{Events: call, Phase: wire.Request}}},
		{"hook, one phase", `{"name":"a","type":"validation","hook":{"events":["tools/call"],"phase":"response"}}`,
			[]wire.Hook{{Events: call, Phase: wire.Response}}},
		{"hook, both", `{"name":"a","type":"validation","hook":{"events":["tools/call"],"phase":"both"},"mode":"enforce"}`,
			[]wire.Hook{{Events: call, Phase: wire.Request}, {Events: call, Phase: wire.Response}}},
		{"hooks win", `{"name":"a","type":"validation","hooks":[],"hook":{"events":["tools/call"],"phase":"both"}}`,
			[]wire.Hook{}},
	}
	for _, tt := range tests {
		var i wire.Interceptor
		if err := json.Unmarshal([]byte(tt.json), &i); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !reflect.DeepEqual(i.Hooks, tt.want) {
			t.Errorf("%s: hooks %+v, want %+v", tt.name, i.Hooks, tt.want)
		}
		if err := i.Check(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if m, err := wire.ParseMode(string(i.Mode)); err != nil || m != wire.Active {
			t.Errorf("%s: mode %q (%v), want active", tt.name, m, err)
		}
		b, err := json.Marshal(&i)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"hook"`) || strings.Contains(string(b), `"enforce"`) {
			t.Errorf("%s: written back with an older name: %s", tt.name, b)
		}
	}
}
