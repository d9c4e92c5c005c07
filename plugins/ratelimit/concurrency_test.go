package ratelimit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

var refusal = regexp.MustCompile(`^rate limit: too many calls (in this session|to tool "search"); retry after \d+h`)

// TestConcurrentCallsExactBudgets is issue 5's fault case: 1,000 concurrent
// calls across 10 sessions, every call answered, budgets exact. The rate is
// ~0 (one token per ~30 years), so exactly the burst is allowed. Run it
// under -race.
func TestConcurrentCallsExactBudgets(t *testing.T) {
	const sessions, perSession = 10, 100
	nearZero := 1e-9
	for _, be := range backends {
		for _, tc := range []struct {
			name string
			cfg  ratelimit.Config
			// check gets the allowed calls per session.
			check func(t *testing.T, allowed []int)
		}{
			{
				name: "per session",
				cfg:  ratelimit.Config{PerSession: ratelimit.Limit{Rate: nearZero, Burst: 30}},
				check: func(t *testing.T, allowed []int) {
					for i, n := range allowed {
						if n != 30 {
							t.Errorf("session %d: %d calls allowed, want exactly the burst (30)", i, n)
						}
					}
				},
			},
			{
				name: "per session and per tool",
				cfg: ratelimit.Config{
					PerSession: ratelimit.Limit{Rate: nearZero, Burst: 30},
					PerTool:    ratelimit.Limit{Rate: nearZero, Burst: 250},
				},
				check: func(t *testing.T, allowed []int) {
					total := 0
					for i, n := range allowed {
						total += n
						if n > 30 {
							t.Errorf("session %d: %d calls allowed, more than its burst (30)", i, n)
						}
					}
					if total != 250 {
						t.Errorf("%d calls allowed in all, want exactly the tool's burst (250)", total)
					}
				},
			},
		} {
			t.Run(be.name+"/"+tc.name, func(t *testing.T) {
				cfg := tc.cfg
				cfg.Backend = be.new(t)
				cfg.Timeout = 30 * time.Second // a decision must not time out under -race on 2 cores
				srv, _ := newServer(t, cfg)
				var css []*mcp.ClientSession
				for range sessions {
					css = append(css, connect(t, srv))
				}
				allowed := make([]int, sessions)
				var mu sync.Mutex
				var wg sync.WaitGroup
				start := make(chan struct{})
				for s := range sessions {
					for range perSession {
						wg.Add(1)
						go func() {
							defer wg.Done()
							<-start
							ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
							defer cancel()
							res, err := css[s].CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}})
							switch {
							case err != nil:
								t.Errorf("session %d: a call was not answered: %v", s, err)
							case !res.IsError:
								mu.Lock()
								allowed[s]++
								mu.Unlock()
							default:
								if txt := res.Content[0].(*mcp.TextContent).Text; !refusal.MatchString(txt) {
									t.Errorf("session %d: unexpected refusal %q", s, txt)
								}
							}
						}()
					}
				}
				close(start)
				wg.Wait()
				tc.check(t, allowed)
			})
		}
	}
}

// TestConcurrentHTTPWithAuth: the same load over real HTTP behind the auth
// plugin: 10 sessions of 5 users (2 sessions each), 1,000 concurrent calls.
// Each session may make 40 calls and each user 60: exactly 60 calls per
// user are allowed (a refusal by one budget spends nothing from the
// other), no session more than 40.
func TestConcurrentHTTPWithAuth(t *testing.T) {
	const users, sessionsPerUser, perSession = 5, 2, 100
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			srv, _ := newServer(t, ratelimit.Config{
				PerSession:   ratelimit.Limit{Rate: 1e-9, Burst: 40},
				PerPrincipal: ratelimit.Limit{Rate: 1e-9, Burst: 60},
				Backend:      be.new(t),
				Timeout:      30 * time.Second,
			})
			verify := func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
				return &sdkauth.TokenInfo{UserID: token, Scopes: []string{"search"}, Expiration: time.Now().Add(time.Hour)}, nil
			}
			ap := auth.New(auth.Config{Verifier: verify, ToolScopes: map[string][]string{"search": {"search"}}})
			if err := srv.Use(ap); err != nil {
				t.Fatal(err)
			}
			h, err := ap.Handler(srv, nil)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			type sess struct {
				user int
				cs   *mcp.ClientSession
			}
			var all []sess
			for u := range users {
				for range sessionsPerUser {
					cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
						&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: plugintest.BearerClient(fmt.Sprintf("user%d", u), nil)}, nil)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { _ = cs.Close() })
					all = append(all, sess{u, cs})
				}
			}
			perUser := make([]int, users)
			perSess := make([]int, len(all))
			var mu sync.Mutex
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i, s := range all {
				for range perSession {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}})
						switch {
						case err != nil:
							t.Errorf("a call was not answered: %v", err)
						case !res.IsError:
							mu.Lock()
							perUser[s.user]++
							perSess[i]++
							mu.Unlock()
						default:
							if txt := res.Content[0].(*mcp.TextContent).Text; !httpRefusal.MatchString(txt) {
								t.Errorf("unexpected refusal %q", txt)
							}
						}
					}()
				}
			}
			close(start)
			wg.Wait()
			for u, n := range perUser {
				if n != 60 {
					t.Errorf("user %d: %d calls allowed, want exactly 60", u, n)
				}
			}
			for i, n := range perSess {
				if n > 40 {
					t.Errorf("session %d: %d calls allowed, more than 40", i, n)
				}
			}
		})
	}
}

var httpRefusal = regexp.MustCompile(`^rate limit: too many calls (in this session|by this user); retry after \d+h`)
