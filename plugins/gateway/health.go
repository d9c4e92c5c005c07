package gateway

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hookflow/hookflow/flows"
)

// The overall statuses of a health report (its "status" field).
const (
	// statusUp: every upstream is up.
	statusUp = "up"
	// statusDegraded: some upstreams are up, some are not.
	statusDegraded = "degraded"
	// statusDown: no upstream is up.
	statusDown = "down"
	// statusStarting: a gateway has not finished attaching.
	statusStarting = "starting"
	// statusClosed: a gateway was closed.
	statusClosed = "closed"
)

// healthReport is the JSON body of the answers of [Gateways].
type healthReport struct {
	Status    string           `json:"status"`
	Upstreams []upstreamReport `json:"upstreams"`
}

type upstreamReport struct {
	Name       string `json:"name"`
	Endpoint   string `json:"endpoint,omitempty"`
	State      string `json:"state"`
	Since      string `json:"since"`
	Error      string `json:"error,omitempty"`
	Reconnects int    `json:"reconnects"`
	Dropped    uint64 `json:"dropped"`
}

// Gateways are the gateways of one server (several when it mounts
// upstreams into apps), as one report of their upstreams' health: a
// [flows.HealthReporter] for a plugin that shows it in process (the
// console), and an http.Handler that answers readiness probes with a JSON
// report of every upstream:
//
//	{"status": "degraded", "upstreams": [
//	  {"name": "files", "state": "up", "since": "2026-11-24T09:30:00Z", "reconnects": 0, "dropped": 0},
//	  {"name": "search", "state": "down", "since": "2026-11-24T09:41:07Z",
//	   "error": "connection failed: …", "reconnects": 2, "dropped": 120}]}
//
// status is "up" when every upstream is up, "degraded" when some are,
// "down" when none is, "starting" until every gateway has attached and
// "closed" once one is closed. The status code is 200 for "up" and
// "degraded", 503 otherwise: a gateway that can forward to some of its
// upstreams keeps serving them, since an outage of an upstream every
// replica shares would otherwise take every replica out of rotation. A
// monitor alerts on "degraded"; a probe that must see every upstream up
// reads status. An upstream a virtual endpoint mounts is reported once
// for each endpoint, with "endpoint": its path. Each upstream's state is its [State]'s name, since is when
// it entered that state (RFC 3339, UTC), error is its [Health.Err] (left
// out when empty), reconnects counts its reconnections and dropped its
// notifications dropped for slow clients ([Health.Dropped]).
//
// The handler answers GET and HEAD on whatever path it is mounted at;
// other methods get 405 with an Allow header. It needs no credentials, so
// the report tells no secret: an error's URLs lose their user info and
// query, and the upstreams' tokens (Token, or the access token in use of
// a TokenSource) and header values are masked. It does
// name the upstreams and the hosts in their errors; serve it where
// probes, not the public, reach it when that matters.
type Gateways []*Gateway

var _ flows.HealthReporter = Gateways(nil)

// ServeHTTP answers a readiness probe with the JSON report of gws.
func (gws Gateways) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rep := gws.HealthReport()
	body, err := json.Marshal(jsonReport(rep))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	code := http.StatusOK
	if rep.Status != statusUp && rep.Status != statusDegraded {
		code = http.StatusServiceUnavailable
	}
	w.WriteHeader(code)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// jsonReport is rep as the handler's JSON body.
func jsonReport(rep flows.HealthReport) healthReport {
	out := healthReport{Status: rep.Status, Upstreams: make([]upstreamReport, 0, len(rep.Upstreams))}
	for _, u := range rep.Upstreams {
		out.Upstreams = append(out.Upstreams, upstreamReport{Name: u.Name, Endpoint: u.Endpoint, State: u.State, Since: u.Since.UTC().Format(time.RFC3339),
			Error: u.Error, Reconnects: u.Reconnects, Dropped: u.Dropped})
	}
	return out
}

// HealthReport returns the health of the upstreams of gws, their errors
// redacted as the handler's are.
func (gws Gateways) HealthReport() flows.HealthReport {
	var rep flows.HealthReport
	starting, closed, up, total := false, false, 0, 0
	for _, g := range gws {
		g.mu.Lock()
		starting = starting || !g.attached
		closed = closed || g.closed
		g.mu.Unlock()
		for i, h := range g.Health() {
			total++
			if h.State == StateUp {
				up++
			}
			u := flows.UpstreamHealth{Name: h.Upstream, Endpoint: g.endpoint, State: h.State.String(), Since: h.Since, Reconnects: h.Reconnects, Dropped: h.Dropped}
			if h.Err != nil {
				u.Error = redact(h.Err.Error(), g.ups[i].secrets())
			}
			rep.Upstreams = append(rep.Upstreams, u)
		}
	}
	switch {
	case closed:
		rep.Status = statusClosed
	case starting:
		rep.Status = statusStarting
	case total > 0 && up == total:
		rep.Status = statusUp
	case up > 0:
		rep.Status = statusDegraded
	default:
		rep.Status = statusDown
	}
	return rep
}

// secrets are the values that must not appear in a health report: the
// configured token and header values, and the OAuth access token in use
// (an upstream's error may repeat what it was sent; the TokenSource's own
// secrets never reach the gateway).
func (u *upstream) secrets() []string {
	c := u.cfg
	var s []string
	if c.Token != "" {
		s = append(s, c.Token)
	}
	if u.tok != nil {
		if t := u.tok.Current(); t != "" {
			s = append(s, t)
		}
	}
	for _, vs := range c.Header {
		for _, v := range vs {
			if v != "" {
				s = append(s, v)
			}
		}
	}
	return s
}

// redact removes the user info, query and fragment of the URLs in msg,
// and masks the secrets in it.
func redact(msg string, secrets []string) string {
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	var b strings.Builder
	for {
		i := strings.Index(msg, "://")
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		start := i
		for start > 0 && isSchemeByte(msg[start-1]) {
			start--
		}
		end := i + len("://")
		for end < len(msg) && !strings.ContainsRune(" \t\r\n\"'<>", rune(msg[end])) {
			end++
		}
		b.WriteString(msg[:start])
		b.WriteString(redactURL(msg[start:end]))
		msg = msg[end:]
	}
}

// redactURL returns s, a URL, without its user info, query and fragment.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		scheme, _, _ := strings.Cut(s, "://")
		return scheme + "://[redacted]"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}
