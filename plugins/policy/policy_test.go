package policy_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/policy"
)

// token returns a verified token of user with claims, as the auth
// plugin's verifiers make them.
func token(user string, claims map[string]any, scopes ...string) *sdkauth.TokenInfo {
	return &sdkauth.TokenInfo{UserID: user, Scopes: scopes, Expiration: time.Now().Add(time.Hour),
		Extra: map[string]any{"claims": claims}}
}

var (
	ann  = token("ann", map[string]any{"groups": []any{"finance", "staff"}, "level": 3.0})
	bob  = token("bob", map[string]any{"groups": []any{"support"}, "level": 1.0})
	anon *sdkauth.TokenInfo
)

func TestPluginKit(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		return policy.New(policy.Config{Rules: []policy.Rule{{Name: "all", Allow: "true"}}})
	}, nil)
}

// TestRules runs each configuration with three callers and checks what
// each lists and what each call gets.
func TestRules(t *testing.T) {
	type want struct {
		list []string // the tools listed
		// calls maps a tool to the refusal its call gets ("" for a
		// result): a substring of the isError text, or "unknown" for the
		// protocol's unknown tool.
		calls map[string]string
	}
	all := []string{"echo", "fail", "next", "panic"}
	for _, tc := range []struct {
		name    string
		cfg     policy.Config
		callers map[string]want
	}{{
		name: "a group's tool",
		cfg: policy.Config{Rules: []policy.Rule{{Name: "next-for-finance", When: `entity.name == "next"`,
			Allow: `has(claims.groups) && "finance" in claims.groups`, Message: "next is for the finance team"}}},
		callers: map[string]want{
			"ann":  {all, map[string]string{"next": ""}},
			"bob":  {[]string{"echo", "fail", "panic"}, map[string]string{"next": "next is for the finance team", "echo": ""}},
			"anon": {[]string{"echo", "fail", "panic"}, map[string]string{"next": "next is for the finance team"}},
		},
	}, {
		name: "concealed",
		cfg: policy.Config{Conceal: true, Rules: []policy.Rule{{Name: "next-for-finance", When: `entity.name == "next"`,
			Allow: `"finance" in claims.groups`}}},
		callers: map[string]want{
			"ann":  {all, map[string]string{"next": ""}},
			"bob":  {[]string{"echo", "fail", "panic"}, map[string]string{"next": "unknown"}},
			"anon": {[]string{"echo", "fail", "panic"}, map[string]string{"next": "unknown", "echo": ""}},
		},
	}, {
		name: "annotations and numbers",
		cfg: policy.Config{Rules: []policy.Rule{{Name: "writes-need-level-2", When: `!entity.annotations.readOnlyHint`,
			Allow: `principal.authenticated && claims.level >= 2`}}},
		callers: map[string]want{
			"ann":  {all, nil},
			"bob":  {[]string{"echo", "fail"}, map[string]string{"next": `denied by policy rule "writes-need-level-2"`, "echo": ""}},
			"anon": {[]string{"echo", "fail"}, map[string]string{"panic": `denied by policy rule "writes-need-level-2"`}},
		},
	}, {
		name: "arguments decide calls, not lists",
		cfg: policy.Config{Rules: []policy.Rule{{Name: "no-secrets", When: `entity.name == "echo"`,
			Allow: `!args.text.contains("secret") || principal.user == "ann"`, Message: "no secrets"}}},
		callers: map[string]want{
			"ann": {all, map[string]string{"echo": ""}},
			"bob": {all, map[string]string{"echo": "no secrets", "next": ""}},
		},
	}, {
		name: "first rule that denies wins",
		cfg: policy.Config{Rules: []policy.Rule{
			{Name: "staff-only", Allow: `principal.user != ""`, Message: "sign in"},
			{Name: "no-panic", When: `entity.name == "panic"`, Allow: `false`, Message: "never"},
		}},
		callers: map[string]want{
			"ann":  {[]string{"echo", "fail", "next"}, map[string]string{"panic": "never"}},
			"anon": {[]string{}, map[string]string{"panic": "sign in", "echo": "sign in"}},
		},
	}, {
		name: "an error denies",
		cfg: policy.Config{Rules: []policy.Rule{{Name: "missing-claim", When: `entity.name == "next"`,
			Allow: `claims.team == "x"`}}},
		callers: map[string]want{
			"ann": {[]string{"echo", "fail", "panic"}, map[string]string{"next": `denied by policy rule "missing-claim"`, "echo": ""}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{policy.New(tc.cfg)}})
			for who, w := range tc.callers {
				tok := map[string]*sdkauth.TokenInfo{"ann": ann, "bob": bob, "anon": anon}[who]
				s := h.Connect(&plugintest.SessionOptions{Token: tok})
				if got := s.ToolNames(); !slices.Equal(got, w.list) {
					t.Errorf("%s lists %v, want %v", who, got, w.list)
				}
				for tool, refusal := range w.calls {
					r := s.Call(tool, map[string]any{"text": "my secret"})
					switch refusal {
					case "":
						if r.Err != nil || (r.IsError() && strings.Contains(r.Text(), "policy")) {
							t.Errorf("%s calling %s: %v, want a result", who, tool, r)
						}
					case "unknown":
						r.WantProtocolError(jsonrpc.CodeInvalidParams)
					default:
						r.WantToolError(refusal)
					}
				}
			}
		})
	}
}

// TestValidate reports each mistake at its field, with the place in the
// expression.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule policy.Rule
		want []string
	}{
		{"no name", policy.Rule{Allow: "true"}, []string{"rules[0].name: required"}},
		{"no allow", policy.Rule{Name: "r"}, []string{"rules[0].allow: required"}},
		{"unknown variable", policy.Rule{Name: "r", Allow: `princpal.user == "x"`},
			[]string{"rules[0].allow: the expression does not compile: 1:1: undeclared reference to 'princpal'"}},
		{"unknown field", policy.Rule{Name: "r", Allow: `principal.usr == "x"`},
			[]string{"rules[0].allow: the expression does not compile: 1:10: undefined field 'usr'"}},
		{"not a bool", policy.Rule{Name: "r", When: `entity.name`, Allow: "true"},
			[]string{"rules[0].when: the expression is a string, want a bool"}},
		{"syntax", policy.Rule{Name: "r", Allow: `entity.name ==`},
			[]string{"rules[0].allow: the expression does not compile: 1:15: Syntax error"}},
		{"too long", policy.Rule{Name: "r", Allow: "true" + strings.Repeat(" && true", 600)},
			[]string{"rules[0].allow: the expression does not compile: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := plugintest.FieldLines(t, policy.Config{Rules: []policy.Rule{tc.rule}}.Validate())
			if len(lines) != len(tc.want) {
				t.Fatalf("got %q, want %q", lines, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("got %q, want it to start with %q", lines[i], w)
				}
			}
		})
	}
	dup := policy.Config{Rules: []policy.Rule{{Name: "r", Allow: "true"}, {Name: "r", Allow: "true"}}}
	if lines := plugintest.FieldLines(t, dup.Validate()); len(lines) != 1 || !strings.Contains(lines[0], `rules[1].name: "r" is also the name of rules[0]`) {
		t.Errorf("duplicate names: %q", lines)
	}
}

// TestBadRuleStopsStart: a server with a bad rule does not start.
func TestBadRuleStopsStart(t *testing.T) {
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{
		policy.New(policy.Config{Rules: []policy.Rule{{Name: "r", Allow: "nope"}}})}})
	if err := h.Start(); err == nil || !strings.Contains(err.Error(), "undeclared reference to 'nope'") {
		t.Errorf("Start: %v", err)
	}
}
