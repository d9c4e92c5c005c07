package flows_test

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
)

// The default list hides secret-bearing names however they are written,
// and leaves visible the names that only look like them.
func TestRedactorDefaults(t *testing.T) {
	r, err := flows.NewRedactor(flows.Redaction{})
	if err != nil {
		t.Fatal(err)
	}
	hidden := []string{
		"password", "Password", "PASSWORD", "db_password", "dbPassword", "dbpassword", "new_password",
		"password_confirm", "password2", "passwd", "passphrase", "passwords",
		"token", "access_token", "accessToken", "authtoken", "refresh-token", "id_token", "token_value",
		"secret", "clientSecret", "client_secret", "SECRET_KEY", "secret_b64", "secrets",
		"apiKey", "api_key", "APIKey", "X-Api-Key", "x-api-key", "apikey", "api_keys",
		"authorization", "Authorization", "Proxy-Authorization", "cookie", "Set-Cookie", "cookies",
		"private_key", "privateKey", "private_key_pem", "credential", "credentials", "awsCredentials",
		"access_key", "signing_key", "encryption_key", "jwt", "session_id", "sessionId", "session_key",
		"oauth2token", "github_token2",
	}
	visible := []string{
		"max_tokens", "maxTokens", "token_count", "tokenCount", "tokens", "input_tokens", "tokenizer",
		"author", "authors", "passage", "keyboard", "key", "cache_key", "sort_key", "primary_key",
		"secret_name", "password_policy", "token_type", "session", "session_count", "cookie_policy",
		"page_token", "pageToken", "next_page_token", "nextToken", "continuation_token", "sync_token",
		"name", "query", "text", "", "_", "value", "hash",
	}
	for _, n := range hidden {
		if !r.Hides(n) {
			t.Errorf("%q is shown, want it hidden", n)
		}
	}
	for _, n := range visible {
		if r.Hides(n) {
			t.Errorf("%q is hidden, want it shown", n)
		}
	}
	got := string(r.Redact([]byte(`{"max_tokens":5,"auth":{"apiKey":"k1","user":{"Password":"p1"}},"items":[{"token":"t1","author":"ada"}]}`)))
	want := `{"auth":{"apiKey":"[REDACTED]","user":{"Password":"[REDACTED]"}},"items":[{"author":"ada","token":"[REDACTED]"}],"max_tokens":5}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Fields extend the list, matched by words as the defaults are; Reveal
// shows a name of the default list, in any spelling, and Fields win.
func TestRedactionConfigured(t *testing.T) {
	r, err := flows.NewRedactor(flows.Redaction{Fields: []string{"ssn", "account_number", "next_token", "private_key"}, Reveal: []string{"session_id", "private_key", "page_token_secret"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		hide bool
	}{
		{"ssn", true}, {"user_ssn", true}, {"SSN", true}, {"accountNumber", true}, {"bank-account-number", true},
		{"account", false}, {"number", false},
		{"session_id", false}, {"sessionId", false}, {"Session-ID", false}, {"user_session_id", true},
		{"next_token", true}, {"privateKey", true}, {"password", true}, {"page_token_secret", false},
	}
	for _, tt := range tests {
		if got := r.Hides(tt.name); got != tt.hide {
			t.Errorf("Hides(%q) = %v, want %v", tt.name, got, tt.hide)
		}
	}
}

// A revealed name must be one the default list hides, and a name, not a
// path.
func TestRedactionRevealInvalid(t *testing.T) {
	for _, n := range []string{"max_tokens", "author", "", "a.token", "_"} {
		_, err := flows.NewRedactor(flows.Redaction{Reveal: []string{n}})
		if flows.CodeOf(err) != flows.CodeInvalid || !strings.Contains(err.Error(), "nothing to reveal") {
			t.Errorf("Reveal %q: %v, want a CodeInvalid error", n, err)
		}
	}
}

// Deciding a name allocates nothing, secret or not, however long it is.
func TestHidesAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are meaningless")
	}
	r, err := flows.NewRedactor(flows.Redaction{Fields: []string{"ssn"}, Reveal: []string{"session_id"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"max_tokens", "clientSecret", "X-Api-Key", "sessionId", strings.Repeat("aB_", 100) + "token", "Ünïcödé_Nämé"} {
		if allocs := testing.AllocsPerRun(100, func() { r.Hides(n) }); allocs != 0 {
			t.Errorf("Hides(%.20q) allocates %v times, want 0", n, allocs)
		}
	}
}

func BenchmarkHides(b *testing.B) {
	r, err := flows.NewRedactor(flows.Redaction{Fields: []string{"ssn"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []string{"name", "max_tokens", "clientSecret", "X-Api-Key"} {
		b.Run(n, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Hides(n)
			}
		})
	}
}
