package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// report is the health handler's JSON body, as a client decodes it.
type report struct {
	Status    string `json:"status"`
	Upstreams []struct {
		Name       string `json:"name"`
		State      string `json:"state"`
		Since      string `json:"since"`
		Error      string `json:"error"`
		Reconnects int    `json:"reconnects"`
		Dropped    uint64 `json:"dropped"`
	} `json:"upstreams"`
}

// probe asks h with method and returns the response and its decoded body
// (zero for HEAD).
func probe(t *testing.T, h http.Handler, method string) (*http.Response, report) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, "/readyz", nil))
	res := rec.Result()
	var rep report
	if method == http.MethodGet {
		if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
			t.Fatalf("body %q: %v", rec.Body.String(), err)
		}
	}
	return res, rep
}

// downUpstream returns a stdio upstream that stays down once its die
// tool is called; every upstream but "a" serves no resources, which would
// clash with a's.
func downUpstream(name string) gateway.Upstream {
	u := stdio(name)
	if name != "a" {
		u.Command = append(u.Command, "-noresources")
	}
	u.Shared = true
	u.Prefix = name + "_"
	u.MinBackoff, u.MaxBackoff = time.Hour, time.Hour
	return u
}

// kill makes the upstream behind prefix's die tool exit, and waits until
// gw marks it down.
func kill(t *testing.T, srv *framework.Server, gw *gateway.Gateway, i int, prefix string) {
	t.Helper()
	call(t, connect(t, srv, nil), prefix+"die", nil)
	eventually(t, "upstream to be down", func() bool { return gw.Health()[i].State == gateway.StateDown })
}

func TestGateways(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup returns the gateways to report on, in the state to test.
		setup  func(t *testing.T) []*gateway.Gateway
		code   int
		status string
		states []string
		errors []bool // which upstreams report an error
	}{
		{"every upstream up", func(t *testing.T) []*gateway.Gateway {
			_, gw := serve(t, nil, downUpstream("a"), downUpstream("b"))
			return []*gateway.Gateway{gw}
		}, 200, "up", []string{"up", "up"}, []bool{false, false}},
		{"one of two down", func(t *testing.T) []*gateway.Gateway {
			srv, gw := serve(t, nil, downUpstream("a"), downUpstream("b"))
			kill(t, srv, gw, 0, "a_")
			return []*gateway.Gateway{gw}
		}, 200, "degraded", []string{"down", "up"}, []bool{true, false}},
		{"every upstream down", func(t *testing.T) []*gateway.Gateway {
			srv, gw := serve(t, nil, downUpstream("a"), downUpstream("b"))
			kill(t, srv, gw, 0, "a_")
			kill(t, srv, gw, 1, "b_")
			return []*gateway.Gateway{gw}
		}, 503, "down", []string{"down", "down"}, []bool{true, true}},
		{"two gateways, one down", func(t *testing.T) []*gateway.Gateway {
			srv, a := serve(t, nil, downUpstream("a"))
			kill(t, srv, a, 0, "a_")
			_, b := serve(t, nil, downUpstream("b"))
			return []*gateway.Gateway{a, b}
		}, 200, "degraded", []string{"down", "up"}, []bool{true, false}},
		{"before attach", func(t *testing.T) []*gateway.Gateway {
			return []*gateway.Gateway{gateway.New(gateway.Config{Upstreams: []gateway.Upstream{downUpstream("a")}})}
		}, 503, "starting", []string{"connecting"}, []bool{false}},
		{"one gateway of two not attached", func(t *testing.T) []*gateway.Gateway {
			_, a := serve(t, nil, downUpstream("a"))
			return []*gateway.Gateway{a, gateway.New(gateway.Config{Upstreams: []gateway.Upstream{downUpstream("b")}})}
		}, 503, "starting", []string{"up", "connecting"}, []bool{false, false}},
		{"after close", func(t *testing.T) []*gateway.Gateway {
			_, gw := serve(t, nil, downUpstream("a"))
			gw.Close()
			return []*gateway.Gateway{gw}
		}, 503, "closed", []string{"closed"}, []bool{false}},
		{"no gateway", func(t *testing.T) []*gateway.Gateway { return nil }, 503, "down", []string{}, []bool{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := gateway.Gateways(tc.setup(t))
			res, rep := probe(t, h, http.MethodGet)
			if res.StatusCode != tc.code || rep.Status != tc.status {
				t.Errorf("GET: %d, status %q; want %d, %q", res.StatusCode, rep.Status, tc.code, tc.status)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if len(rep.Upstreams) != len(tc.states) {
				t.Fatalf("upstreams = %+v, want %d", rep.Upstreams, len(tc.states))
			}
			for i, u := range rep.Upstreams {
				if u.State != tc.states[i] || (u.Error != "") != tc.errors[i] {
					t.Errorf("upstream %d = %+v, want state %q, an error: %v", i, u, tc.states[i], tc.errors[i])
				}
				if _, err := time.Parse(time.RFC3339, u.Since); err != nil {
					t.Errorf("upstream %d since = %q: %v", i, u.Since, err)
				}
			}
			if res, _ := probe(t, h, http.MethodHead); res.StatusCode != tc.code {
				t.Errorf("HEAD: %d, want %d", res.StatusCode, tc.code)
			}
			// In process, the report says what the endpoint's says.
			typed := h.HealthReport()
			if typed.Status != tc.status || len(typed.Upstreams) != len(rep.Upstreams) {
				t.Fatalf("HealthReport = %+v, want status %q and the endpoint's %d upstreams", typed, tc.status, len(rep.Upstreams))
			}
			for i, u := range typed.Upstreams {
				j := rep.Upstreams[i]
				if u.Name != j.Name || u.State != j.State || u.Error != j.Error || u.Since.UTC().Format(time.RFC3339) != j.Since || u.Reconnects != j.Reconnects || u.Dropped != j.Dropped {
					t.Errorf("HealthReport upstream %d = %+v, the endpoint's %+v", i, u, j)
				}
			}
		})
	}
}

func TestGatewaysBody(t *testing.T) {
	srv, gw := serve(t, nil, downUpstream("a"))
	kill(t, srv, gw, 0, "a_")
	rec := httptest.NewRecorder()
	gateway.Gateways{gw}.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	// The field names are the documented ones, and no others.
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	up := body["upstreams"].([]any)[0].(map[string]any)
	if len(body) != 2 || body["status"] != "down" || len(up) != 6 || up["name"] != "a" || up["state"] != "down" ||
		up["reconnects"] != 0.0 || up["dropped"] != 0.0 || up["error"] == nil || up["since"] == nil {
		t.Errorf("body = %s", rec.Body.String())
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q", cc)
	}

	rec = httptest.NewRecorder()
	gateway.Gateways{gw}.ServeHTTP(rec, httptest.NewRequest("HEAD", "/", nil))
	if rec.Body.Len() != 0 {
		t.Errorf("HEAD body = %q, want none", rec.Body.String())
	}
}

func TestGatewaysMethods(t *testing.T) {
	h := gateway.Gateways{gateway.New(gateway.Config{Upstreams: []gateway.Upstream{downUpstream("a")}})}
	for _, m := range []string{"POST", "PUT", "DELETE", "OPTIONS"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(m, "/", nil))
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d, Allow %q; want 405, \"GET, HEAD\"", m, rec.Code, rec.Header().Get("Allow"))
		}
	}
}

// TestGatewaysRedacts checks that a report tells no secret: of an
// upstream that cannot be reached at a URL with credentials, and of one
// whose error repeats the token (configured, or from its TokenSource) and
// header it was sent.
func TestGatewaysRedacts(t *testing.T) {
	// A loopback port nothing listens on: the address of a closed server.
	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.Listener.Addr().String()
	closed.Close()
	echo := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ ID json.RawMessage }
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"refused %s, %s"}}`,
			req.ID, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
	}))
	static := gateway.Upstream{Token: "token-secret", Header: http.Header{"X-Api-Key": {"header-secret"}}}
	oauth := gateway.Upstream{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "oauth-secret"})}
	for _, tc := range []struct {
		name string
		up   gateway.Upstream
		url  string
		want string
	}{
		{"credentials in the URL", static, "http://ada:pass-word@" + addr + "/mcp?key=query-secret#frag", `Post "http://` + addr + `/mcp": dial tcp`},
		{"an error repeating the token", static, echo, "refused Bearer [redacted], [redacted]"},
		{"an error repeating the OAuth token", oauth, echo, "refused Bearer [redacted], "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := tc.up
			up.Name, up.URL = "a", tc.url
			gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{up}})
			srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
			if err := srv.Use(gw); err != nil {
				t.Fatal(err)
			}
			if err := srv.Start(); err == nil {
				t.Fatal("Start succeeded, want the upstream to fail it")
			}
			_, rep := probe(t, gateway.Gateways{gw}, http.MethodGet)
			if rep.Status != "closed" || len(rep.Upstreams) != 1 {
				t.Fatalf("report = %+v", rep)
			}
			msg := rep.Upstreams[0].Error
			for _, secret := range []string{"ada", "pass", "query-secret", "frag", "token-secret", "header-secret", "oauth-secret"} {
				if strings.Contains(msg, secret) {
					t.Errorf("the report's error %q tells %q", msg, secret)
				}
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("the report's error is %q, want it to contain %q", msg, tc.want)
			}
		})
	}
}
