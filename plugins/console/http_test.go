package console_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/console"
)

// Each answer's status, headers and body: the bearer scheme in any case,
// the versioned files kept by the browser, no directory listing, the
// icon, and the error pages in the console's frame.
func TestHTTPAnswers(t *testing.T) {
	_, _, ts := newConsole(t, console.Config{})
	bearer := func(scheme string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", scheme+token) }
	}
	ok := bearer("Bearer ")
	static := "/console/static/" + console.Version + "/"
	errorPage := []string{`<html lang="en">`, "<title>", `<nav aria-label="Console pages">`, `id="problem"`}
	tests := []struct {
		name        string
		method      string
		path        string
		set         func(*http.Request)
		status      int
		contentType string
		cache       string
		body        []string // what the body holds
		not         []string // what it must not
	}{
		{"bearer in lower case", "GET", "/console/", bearer("bearer "), 200, "text/html", "no-store", nil, nil},
		{"bearer in capitals", "GET", "/console/", bearer("BEARER "), 200, "text/html", "no-store", nil, nil},
		{"bearer without a space", "GET", "/console/", bearer("Bearer"), 401, "text/html", "no-store", errorPage, []string{token}},
		{"versioned stylesheet", "GET", static + "console.css", ok, 200, "text/css", "immutable", nil, nil},
		{"versioned script", "GET", static + "console.js", ok, 200, "text/javascript", "immutable", nil, nil},
		{"static directory", "GET", static, ok, 404, "text/html", "no-store", errorPage, []string{`href="console.js"`, `href="console.css"`}},
		{"static file that is not there", "GET", static + "nope.js", ok, 404, "text/html", "no-store", errorPage, nil},
		{"static parent", "GET", "/console/static/", ok, 404, "text/html", "no-store", errorPage, []string{`href="console.js"`}},
		{"icon", "GET", "/favicon.ico", ok, 200, "image/svg+xml", "max-age", []string{"<svg"}, nil},
		{"icon under the path", "GET", "/console/favicon.ico", ok, 200, "image/svg+xml", "max-age", []string{"<svg"}, nil},
		{"pages link the icon", "GET", "/console/rates", ok, 200, "text/html", "no-store", []string{`<link rel="icon" type="image/svg+xml" href="/console/favicon.ico">`}, nil},
		{"401", "GET", "/console/runs/1", nil, 401, "text/html", "no-store", append([]string{"Sign in", "the admin token"}, errorPage...), nil},
		{"404 page", "GET", "/console/nope", ok, 404, "text/html", "no-store", append([]string{"Not found"}, errorPage...), nil},
		{"404 run", "GET", "/console/runs/999999", ok, 404, "text/html", "no-store", append([]string{"No such run"}, errorPage...), nil},
		{"405", "DELETE", "/console/", ok, 405, "text/html", "no-store", append([]string{"read-only"}, errorPage...), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, nil)
			if tc.set != nil {
				tc.set(req)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tc.contentType)
			}
			if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, tc.cache) {
				t.Errorf("Cache-Control %q, want %s", cc, tc.cache)
			}
			for _, want := range tc.body {
				if !strings.Contains(string(b), want) {
					t.Errorf("the body lacks %q:\n%s", want, b)
				}
			}
			for _, bad := range tc.not {
				if strings.Contains(string(b), bad) {
					t.Errorf("the body holds %q:\n%s", bad, b)
				}
			}
		})
	}
}
