package console

import (
	"crypto/subtle"
	"embed"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
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
	static, _ := fs.Sub(assets, "static")
	mux.Handle("GET "+base+"/static/"+Version+"/", http.StripPrefix(base+"/static/"+Version+"/", http.FileServerFS(static)))
	mux.HandleFunc("GET "+base+"/{$}", p.runsPage)
	mux.HandleFunc("GET "+base, p.runsPage)
	mux.HandleFunc("GET "+base+"/runs/{seq}", p.runPage)
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
			http.Error(w, "the console is read-only: use GET", http.StatusMethodNotAllowed)
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
		http.Error(w, "the console needs the scope "+p.cfg.Scope, http.StatusForbidden)
		return false
	}
	if p.cfg.Token != "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="hookflow console", charset="UTF-8"`)
	} else {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	http.Error(w, "the console needs its credential: the admin token, or a bearer token with the scope "+p.cfg.Scope, http.StatusUnauthorized)
	return false
}

// presented returns the token r presents: a bearer token, or the password
// of basic authentication.
func presented(r *http.Request) (string, bool) {
	a := r.Header.Get("Authorization")
	if tok, ok := strings.CutPrefix(a, "Bearer "); ok {
		return tok, true
	}
	if _, pw, ok := r.BasicAuth(); ok {
		return pw, true
	}
	return "", false
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

func parseSeq(s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}
