package framework

import (
	"cmp"
	"net/http"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/flows"
)

// DefaultAdminScope is the scope a token needs for the admin endpoints
// when [AdminOptions.Scope] is empty.
const DefaultAdminScope = "hookflow:admin"

// AdminOptions configures the read-only admin endpoints that
// [Server.HTTPHandler] serves when [Options.Admin] is set.
//
// The endpoints sit behind the auth plugin: its HTTP handler or middleware
// (package plugins/auth) wraps the whole handler, verifies the bearer token,
// and the endpoint then requires Scope among the token's scopes. Without a
// verified token every request is refused with 401, unless Unauthenticated
// is set.
type AdminOptions struct {
	// ExplainPath is where the run-time plan is served, e.g.
	// "/admin/explain": GET <path>?flow=tools:call-tool&entity=get_weather
	// answers with [Server.Explain]'s text (entity is left out for flows
	// without one). Empty serves nothing.
	ExplainPath string
	// Scope is the scope a caller's verified token must carry;
	// DefaultAdminScope when empty.
	Scope string
	// Unauthenticated serves the endpoints without a verified token: only
	// for a server that listens on loopback for its operator.
	Unauthenticated bool
}

// adminHandler serves the admin endpoints and passes every other request
// to next.
type adminHandler struct {
	srv  *Server
	opts AdminOptions
	next http.Handler
}

func (h *adminHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != h.opts.ExplainPath {
		h.next.ServeHTTP(w, r)
		return
	}
	if !h.allowed(w, r) {
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "the explain endpoint is read-only: use GET", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	flow := q.Get("flow")
	if flow == "" {
		var ids []string
		for _, f := range flows.All() {
			ids = append(ids, string(f.ID))
		}
		http.Error(w, "usage: GET "+h.opts.ExplainPath+"?flow=<flow>[&entity=<name or URI>]; flows: "+strings.Join(ids, ", "), http.StatusBadRequest)
		return
	}
	plan, err := h.srv.Explain(flows.ID(flow), q.Get("entity"))
	if err != nil {
		status := http.StatusBadRequest
		if flows.CodeOf(err) == flows.CodeNotFound {
			status = http.StatusNotFound
		}
		http.Error(w, flows.Reason(err), status)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(plan))
}

// allowed checks the caller's verified token, answering 401 or 403 when it
// does not pass.
func (h *adminHandler) allowed(w http.ResponseWriter, r *http.Request) bool {
	if h.opts.Unauthenticated {
		return true
	}
	ti := sdkauth.TokenInfoFromContext(r.Context())
	if ti == nil {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "the admin endpoints need a verified bearer token: serve them behind the auth plugin", http.StatusUnauthorized)
		return false
	}
	scope := cmp.Or(h.opts.Scope, DefaultAdminScope)
	if !slices.Contains(ti.Scopes, scope) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+scope+`"`)
		http.Error(w, "the admin endpoints need the scope "+scope, http.StatusForbidden)
		return false
	}
	return true
}
