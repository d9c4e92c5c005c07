package console

import (
	"crypto/subtle"
	"embed"
	"io/fs"
	"net/http"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// assets are the console's stylesheet and script, served under
// Path+"/static/"+Version+"/".
//
//go:embed static
var assets embed.FS

// Version names the console's static files: their URLs change with it,
// so that a browser never runs a script of another version.
const Version = "v1"

// newHandler returns the console's handler: the pages under the path,
// each behind the credential check.
func (p *Plugin) newHandler() http.Handler {
	base := p.cfg.Path
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+base+"/static/"+Version+"/{file}", p.static)
	mux.HandleFunc("GET "+base+"/favicon.ico", favicon)
	mux.HandleFunc("GET /favicon.ico", favicon)
	mux.HandleFunc("GET "+base+"/", func(w http.ResponseWriter, r *http.Request) {
		p.problem(w, http.StatusNotFound, "Not found", "The console has no page at this address.")
	})
	mux.HandleFunc("GET "+base+"/{$}", p.runsPage)
	mux.HandleFunc("GET "+base, p.runsPage)
	mux.HandleFunc("GET "+base+"/runs/{id}", p.runPage)
	mux.HandleFunc("GET "+base+"/plan", p.planPage)
	mux.HandleFunc("GET "+base+"/upstreams", p.upstreamsPage)
	mux.HandleFunc("GET "+base+"/rates", p.ratesPage)
	mux.HandleFunc("GET "+base+"/events", p.events)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		if !p.allowed(w, r) {
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			p.problem(w, http.StatusMethodNotAllowed, "Read-only", "The console is read-only: use GET.")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// allowed reports whether r carries the console's credential: the admin
// token (as a bearer token or a basic password), or a token the auth
// plugin verified with the console's scope. Otherwise it answers 401 (or
// 403 for a verified token without the scope).
func (p *Plugin) allowed(w http.ResponseWriter, r *http.Request) bool {
	if tok := p.cfg.Token; tok != "" {
		if got, ok := presented(r); ok && subtle.ConstantTimeCompare([]byte(got), []byte(tok)) == 1 {
			return true
		}
	}
	if ti := sdkauth.TokenInfoFromContext(r.Context()); ti != nil {
		if slices.Contains(ti.Scopes, p.cfg.Scope) {
			return true
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+p.cfg.Scope+`"`)
		p.problem(w, http.StatusForbidden, "Forbidden", "The console needs the scope "+p.cfg.Scope+".")
		return false
	}
	if p.cfg.Token != "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="hookflow console", charset="UTF-8"`)
	} else {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	p.problem(w, http.StatusUnauthorized, "Sign in", "The console needs its credential: the admin token, or a bearer token with the scope "+p.cfg.Scope+".")
	return false
}

// presented returns the token r presents: a bearer token (the scheme in
// any case), or the password of basic authentication.
func presented(r *http.Request) (string, bool) {
	a := r.Header.Get("Authorization")
	if scheme, tok, ok := strings.Cut(a, " "); ok && strings.EqualFold(scheme, "Bearer") {
		return tok, true
	}
	if _, pw, ok := r.BasicAuth(); ok {
		return pw, true
	}
	return "", false
}

// static serves a file of the console's stylesheet and script: its URL
// names the console's Version, so a browser may keep it for good. A
// directory is not a file: it is not listed.
func (p *Plugin) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	st, err := fs.Stat(assets, "static/"+name)
	if err != nil || !st.Mode().IsRegular() {
		p.problem(w, http.StatusNotFound, "Not found", "The console has no such file.")
		return
	}
	w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	http.ServeFileFS(w, r, assets, "static/"+name)
}

// favicon serves the console's icon, for the browser's tab.
func favicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "private, max-age=86400")
	w.Header().Set("Content-Type", "image/svg+xml")
	http.ServeFileFS(w, r, assets, "static/favicon.svg")
}

// problem answers code with a small page of the console's frame: a
// title, the problem and a way back.
func (p *Plugin) problem(w http.ResponseWriter, code int, title, problem string) {
	p.renderStatus(w, code, "error", struct {
		page
		Problem string
	}{page{title, ""}, problem})
}

// filter is what the runs list and its live stream show: every field
// set must match.
type filter struct {
	Outcome, Tool, Principal, Upstream, Flow string
}

func filterOf(r *http.Request) filter {
	q := r.URL.Query()
	get := func(k string) string { return capText(strings.TrimSpace(q.Get(k))) }
	return filter{Outcome: get("outcome"), Tool: get("tool"), Principal: get("principal"), Upstream: get("upstream"), Flow: get("flow")}
}

func (f filter) keep(r *record) bool {
	return (f.Outcome == "" || f.Outcome == r.Outcome) &&
		(f.Tool == "" || f.Tool == r.Entity) &&
		(f.Principal == "" || f.Principal == r.Principal) &&
		(f.Upstream == "" || f.Upstream == r.Upstream) &&
		(f.Flow == "" || f.Flow == r.Flow)
}

// query returns f as a URL query, "" when f is empty.
func (f filter) query() string {
	var parts []string
	for _, kv := range [][2]string{{"outcome", f.Outcome}, {"tool", f.Tool}, {"principal", f.Principal}, {"upstream", f.Upstream}, {"flow", f.Flow}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+urlEscape(kv[1]))
		}
	}
	return strings.Join(parts, "&")
}
