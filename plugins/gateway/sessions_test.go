package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// TestRootsListChangedReachesUpstream changes a client's roots: the
// upstream session of that client hears notifications/roots/list_changed
// and lists the roots again; another client's upstream session hears
// nothing. The gateway is attached to the server or to an app.
func TestRootsListChangedReachesUpstream(t *testing.T) {
	for _, tr := range transports {
		for _, attach := range []string{"server", "app"} {
			t.Run(tr.name+"/"+attach, func(t *testing.T) {
				gw := gateway.New(gateway.Config{Upstreams: []gateway.Upstream{tr.upstream(t, "up")}})
				srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
				if attach == "server" {
					check(t, srv.Use(gw))
				} else {
					app, err := srv.App("upstreams")
					check(t, err)
					check(t, app.Use(gw))
				}
				check(t, srv.Start())
				t.Cleanup(func() { gw.Close() })

				changing := mcp.NewClient(&mcp.Implementation{Name: "changing", Version: "1"}, nil)
				changing.AddRoots(&mcp.Root{URI: "file:///a"})
				cs := connectClient(t, srv, changing)
				other := connect(t, srv, nil, &mcp.Root{URI: "file:///other"})
				// Each session's first call opens its upstream session.
				if got, _ := call(t, cs, "roots", nil); got != "roots: file:///a" {
					t.Fatalf("roots = %q", got)
				}
				if got, _ := call(t, other, "roots", nil); got != "roots: file:///other" {
					t.Fatalf("other's roots = %q", got)
				}

				changing.AddRoots(&mcp.Root{URI: "file:///b"})
				var got string
				eventually(t, "the upstream to hear the roots changed", func() bool {
					got, _ = call(t, cs, "roots_seen", nil)
					return !strings.HasPrefix(got, "0:")
				})
				if got != "1: file:///a,file:///b" {
					t.Errorf("the upstream heard %q, want one change, then the new roots listed", got)
				}
				if got, _ := call(t, other, "roots_seen", nil); got != "0: " {
					t.Errorf("the other client's upstream session heard %q, want nothing", got)
				}
			})
		}
	}
}

// TestConcurrentClientsGetTheirOwn has two client sessions call one
// upstream tool at once: each gets the upstream's progress, log messages
// and sampling request about its own call, none of the other's.
func TestConcurrentClientsGetTheirOwn(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv, _ := serve(t, nil, tr.upstream(t, "up"))
			names := []string{"alice", "bob"}
			// Both sampling requests are pending before either is answered:
			// the two calls are in flight together.
			var entered sync.WaitGroup
			entered.Add(len(names))
			both := make(chan struct{})
			go func() { entered.Wait(); close(both) }()

			type heard struct {
				mu       sync.Mutex
				sampled  []string
				progress []string // token/message
				logs     []string
			}
			hs := map[string]*heard{}
			sessions := map[string]*mcp.ClientSession{}
			for _, name := range names {
				h := &heard{}
				hs[name] = h
				sessions[name] = connect(t, srv, &mcp.ClientOptions{
					CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
						h.mu.Lock()
						h.sampled = append(h.sampled, req.Params.Messages[0].Content.(*mcp.TextContent).Text)
						h.mu.Unlock()
						entered.Done()
						select {
						case <-both:
						case <-time.After(time.Minute):
							return nil, errors.New("the other call never asked to sample")
						}
						return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "answer to " + name}}, nil
					},
					ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
						h.mu.Lock()
						defer h.mu.Unlock()
						h.progress = append(h.progress, fmt.Sprint(req.Params.ProgressToken, "/", req.Params.Message))
					},
					LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
						h.mu.Lock()
						defer h.mu.Unlock()
						h.logs = append(h.logs, fmt.Sprint(req.Params.Data))
					},
				})
				check(t, sessions[name].SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}))
			}

			results := map[string]string{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, name := range names {
				wg.Go(func() {
					p := &mcp.CallToolParams{Name: "chat", Arguments: map[string]any{"text": name}}
					p.SetProgressToken(name + "-token")
					res, err := sessions[name].CallTool(context.Background(), p)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						results[name] = "error: " + err.Error()
						return
					}
					results[name] = text(res)
				})
			}
			wg.Wait()
			for _, name := range names {
				if want := "chat " + name + ": answer to " + name; results[name] != want {
					t.Errorf("%s's call = %q, want %q", name, results[name], want)
				}
				h := hs[name]
				eventually(t, name+" to hear 2 progress notifications and a log message", func() bool {
					h.mu.Lock()
					defer h.mu.Unlock()
					return len(h.progress) >= 2 && len(h.logs) >= 1
				})
				h.mu.Lock()
				tok := name + "-token/" + name
				if !slices.Equal(h.sampled, []string{name}) {
					t.Errorf("%s was asked to sample %q, want only its own call's", name, h.sampled)
				}
				if !slices.Equal(h.progress, []string{tok, tok}) {
					t.Errorf("%s heard progress %q, want its own call's twice", name, h.progress)
				}
				if !slices.Equal(h.logs, []string{name}) {
					t.Errorf("%s heard log messages %q, want its own call's", name, h.logs)
				}
				h.mu.Unlock()
			}
		})
	}
}

// TestRequestFollowsItsCall: over HTTP, an upstream's sampling request goes
// with the call whose response stream carried it, not with the newest call
// of the session. Call B asks for sampling while a newer call A is in
// flight; the client answers only after A has ended. Were the request tied
// to A, A's end would cancel it and B would fail. A request of more than
// 1 MiB goes with its call too (the gateway's parse of the SDK transport's
// event lines left longer ones unmarked).
func TestRequestFollowsItsCall(t *testing.T) {
	for name, text := range map[string]string{"short": "q", "over 1 MiB": strings.Repeat("q", 3<<19)} {
		t.Run(name, func(t *testing.T) { testRequestFollowsItsCall(t, text) })
	}
}

func testRequestFollowsItsCall(t *testing.T, question string) {
	u := httpUpstream(t, "up", "-token", "s3cret")
	u.Token = "s3cret"
	u.Timeout = time.Minute
	srv, _ := serve(t, nil, u)
	dir := t.TempDir()
	sample, bReady, aReady, release := dir+"/sample", dir+"/b-ready", dir+"/a-ready", dir+"/a-release"
	aEnded := make(chan struct{})
	cs := connect(t, srv, &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			check(t, os.WriteFile(release, nil, 0o600))
			select {
			case <-aEnded:
			case <-time.After(30 * time.Second):
				return nil, errors.New("call A did not end")
			}
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "42"}}, nil
		},
	})
	type answer struct {
		text  string
		isErr bool
		err   error
	}
	callAsync := func(tool string, args map[string]any, done func()) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if done != nil {
				done()
			}
			if err != nil {
				ch <- answer{err: err}
				return
			}
			ch <- answer{text: text(res), isErr: res.IsError}
		}()
		return ch
	}
	exists := func(path string) func() bool {
		return func() bool { _, err := os.Stat(path); return err == nil }
	}
	b := callAsync("sample_when", map[string]any{"path": sample, "ready": bReady, "text": question}, nil)
	eventually(t, "call B to be in flight upstream", exists(bReady))
	a := callAsync("wait_file", map[string]any{"path": release, "ready": aReady}, func() { close(aEnded) })
	eventually(t, "call A to be in flight upstream", exists(aReady))
	check(t, os.WriteFile(sample, nil, 0o600)) // B samples now, A being the newest call
	for name, ch := range map[string]<-chan answer{"A": a, "B": b} {
		select {
		case got := <-ch:
			want := map[string]string{"A": "ok", "B": "sampled: 42"}[name]
			if got.err != nil || got.isErr || got.text != want {
				t.Errorf("call %s = %q (isError %v, err %v), want %q", name, got.text, got.isErr, got.err, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("call %s did not return", name)
		}
	}
}
