package gateway_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/gateway"
)

// handMatch is how the gateway matched a URI against a template before
// templates were compiled once: a regexp built at each match, each
// {variable} one or more characters other than "/" ({+var} and {#var}
// any). It is the reference the compiled templates are held to.
func handMatch(tmpl, uri string) bool {
	var b strings.Builder
	b.WriteByte('^')
	for len(tmpl) > 0 {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(tmpl))
			break
		}
		b.WriteString(regexp.QuoteMeta(tmpl[:i]))
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return false
		}
		if v := tmpl[i+1 : i+j]; len(v) > 0 && (v[0] == '+' || v[0] == '#') {
			b.WriteString(".+")
		} else {
			b.WriteString("[^/]+")
		}
		tmpl = tmpl[i+j+1:]
	}
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(uri)
}

// The templates of the tests and docs, with and without a resource
// prefix, match the URIs they did when a regexp was built per match.
func TestTemplatesMatchAsBefore(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		uris []string
	}{
		{"test://item/{id}", []string{"test://item/1", "test://item/abc-1.2_x~", "test://item/%20", "test://item/1/2", "test://items/1", "up+test://item/1"}},
		{"up+test://item/{id}", []string{"up+test://item/7", "test://item/7", "up+test://item/7/8", "upxtest://item/7"}},
		{"test://template/{id}/data", []string{"test://template/3/data", "test://template/3/other", "test://template/3/4/data", "test://template/3/data/"}},
		{"file:///{+path}", []string{"file:///a", "file:///a/b/c.txt", "files:///a"}},
		{"db://{table}/{id}", []string{"db://users/1", "db://users", "db://users/1/2"}},
	} {
		match := gateway.MatchTemplate(tc.tmpl)
		for _, uri := range tc.uris {
			if got, want := match(uri), handMatch(tc.tmpl, uri); got != want {
				t.Errorf("%s against %s = %v, want %v", uri, tc.tmpl, got, want)
			}
		}
	}
}

// Where the two differ, a compiled template matches what RFC 6570
// expands it to, as the server matches a read: a value with a character
// a simple expansion would percent-encode is not one, an empty value is.
// A subscription then goes upstream exactly when a read of its URI
// would.
func TestTemplatesMatchAsReads(t *testing.T) {
	for _, tc := range []struct {
		tmpl, uri string
		want      bool
	}{
		{"test://item/{id}", "test://item/1?x", false},
		{"test://item/{id}", "test://item/a b", false},
		{"test://item/{id}", "test://item/", true},
		{"file:///{+path}", "file:///", true},
		{"file:///{+path}", "file:///a?b", true},
	} {
		if got := gateway.MatchTemplate(tc.tmpl)(tc.uri); got != tc.want {
			t.Errorf("%s against %s = %v, want %v", tc.uri, tc.tmpl, got, tc.want)
		}
	}
}

// A template that does not parse matches nothing.
func TestBrokenTemplateMatchesNothing(t *testing.T) {
	for _, tmpl := range []string{"test://item/{id", "test://{}/x", "test://{a b}"} {
		if gateway.MatchTemplate(tmpl)("test://item/1") {
			t.Errorf("%q matched", tmpl)
		}
	}
}

// Matching a compiled template allocates nothing, and so no more than
// the regexp built at each match did.
func TestTemplateMatchAllocs(t *testing.T) {
	const tmpl, uri = "up+test://template/{id}/data", "up+test://template/42/data"
	match := gateway.MatchTemplate(tmpl)
	// AllocsPerRun counts every goroutine's allocations, and the
	// package's other tests leave goroutines winding down: a match that
	// allocates does so in every measurement, so the least of a few is
	// what a match costs.
	compiled := testing.AllocsPerRun(100, func() { match(uri) })
	for range 4 {
		compiled = min(compiled, testing.AllocsPerRun(100, func() { match(uri) }))
	}
	hand := testing.AllocsPerRun(100, func() { handMatch(tmpl, uri) })
	if compiled > 0 || compiled > hand {
		t.Errorf("a match allocates %v times, want 0 (a regexp per match: %v)", compiled, hand)
	}
}
