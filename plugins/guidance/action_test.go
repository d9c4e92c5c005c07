package guidance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/guidance"
	"github.com/hookflow/hookflow/stages"
)

type noteIn struct {
	Text string `json:"text"`
}

type noteOut struct {
	Saved string `json:"saved"`
}

// saveNote saves nothing; "fail" fails it.
func saveNote(_ context.Context, _ *mcp.CallToolRequest, in noteIn) (noteOut, error) {
	if in.Text == "fail" {
		return noteOut{}, errors.New("disk full")
	}
	return noteOut{Saved: in.Text}, nil
}

// actionHooks are the guidance of the save_note tool (start, end, a
// sampling-only end hook), of every tool (start), and of another tool.
func actionHooks() []guidance.Hook {
	save := guidance.Tool("save_note")
	return []guidance.Hook{
		{Tag: "save-start", Type: guidance.TypeAction, Lifecycle: guidance.Start, Level: guidance.Must, On: save, Content: "Tell the user what you save."},
		{Tag: "save-end", Type: guidance.TypeAction, Lifecycle: guidance.End, Level: guidance.Should, On: save, Content: "Offer to list the notes."},
		{Tag: "save-summary", Type: guidance.TypeAction, Lifecycle: guidance.End, Level: guidance.May, On: save,
			Conditions: guidance.Conditions{Features: []guidance.Feature{guidance.Sampling}}, Content: "Summarize the note with sampling."},
		{Tag: "every-tool", Type: guidance.TypeAction, Lifecycle: guidance.Start, Level: guidance.MustNot, Content: "Never call tools in a loop."},
		{Tag: "other-end", Type: guidance.TypeAction, Lifecycle: guidance.End, Level: guidance.Must, On: guidance.Tool("other"), Content: "Not for save_note."},
		{Tag: "storage-end", Type: guidance.TypeStorage, Lifecycle: guidance.End, Level: guidance.Should, On: save,
			Conditions: guidance.Conditions{Storage: []string{"memory"}}, Content: "Memory notes vanish on restart: say so."},
	}
}

func byTag(hooks []guidance.Hook, tags ...string) []guidance.Hook {
	var out []guidance.Hook
	for _, h := range hooks {
		if slices.Contains(tags, h.Tag) {
			out = append(out, h)
		}
	}
	return out
}

// TestToolStartEnd: a tool call's result carries its start guidance and
// its end guidance as text blocks after the tool's own content, its
// structuredContent untouched; a failed call too (isError); a call another
// hook blocks gets none; the guidance is composed for the session's
// client; a skipped hook's notice reaches the client once per session.
func TestToolStartEnd(t *testing.T) {
	hooks := actionHooks()
	p := guidance.New(guidance.Config{Hooks: hooks, Storage: []string{"memory"}})
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		return errors.Join(
			framework.AddToolFunc(s, &mcp.Tool{Name: "save_note"}, saveNote),
			framework.AddToolFunc(s, &mcp.Tool{Name: "other"}, saveNote),
			s.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "block", Fn: func(c *flows.Context) error {
				if strings.Contains(string(c.Arguments()), "blocked") {
					return errors.New("blocked by a test hook")
				}
				return nil
			}}),
		)
	})
	memory := guidance.Env{Storage: []string{"memory"}}
	start := compose(memory, byTag(hooks, "save-start", "every-tool")...)
	end := compose(memory, byTag(hooks, "save-end", "save-summary", "storage-end")...)
	withSampling := memory
	withSampling.Features = withSampling.Features.With(guidance.Sampling)
	endSampling := compose(withSampling, byTag(hooks, "save-end", "save-summary", "storage-end")...)

	t.Run("plain client", func(t *testing.T) {
		cs, l := connect(t, srv, client{logLevel: "notice"})
		for range 2 {
			res, got := call(t, cs, &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "milk"}})
			if res.IsError || !slices.Equal(got, []string{`{"saved":"milk"}`, start, end}) {
				t.Errorf("result %v: %q, want the output, start and end guidance", res.IsError, got)
			}
			if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"saved":"milk"}` {
				t.Errorf("structuredContent %s", b)
			}
		}
		notice := l.wait(t, "skip notice", func(m *mcp.LoggingMessageParams) bool { return m.Level == "notice" })
		if want := "1 hook was skipped (conditions not met): save-summary (requires features: sampling)."; text(notice) != want {
			t.Errorf("notice %q, want %q", text(notice), want)
		}
		res, got := call(t, cs, &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "fail"}})
		if !res.IsError || !slices.Equal(got, []string{"disk full", start, end}) {
			t.Errorf("failed call %v: %q", res.IsError, got)
		}
		res, got = call(t, cs, &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "blocked"}})
		if !res.IsError || !slices.Equal(got, []string{"blocked by a test hook"}) {
			t.Errorf("blocked call %v: %q, want the refusal only", res.IsError, got)
		}
		res, got = call(t, cs, &mcp.CallToolParams{Name: "other", Arguments: map[string]any{"text": "x"}})
		if want := compose(memory, byTag(hooks, "every-tool")...); res.IsError || !slices.Equal(got, []string{`{"saved":"x"}`, want, compose(memory, byTag(hooks, "other-end")...)}) {
			t.Errorf("other tool: %q", got)
		}
		n := 0
		for _, m := range l.snapshot() {
			if m.Level == "notice" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d notices, want the skip notice once: %s", n, l)
		}
	})
	t.Run("sampling client", func(t *testing.T) {
		cs, _ := connect(t, srv, client{sampling: true})
		_, got := call(t, cs, &mcp.CallToolParams{Name: "save_note", Arguments: map[string]any{"text": "milk"}})
		if !slices.Equal(got, []string{`{"saved":"milk"}`, start, endSampling}) {
			t.Errorf("got %q", got)
		}
	})
}

// TestRunning: when a tool call starts executing, its running guidance
// goes to the client's log with the call's request ID, before the result;
// the tool reads the same text with Running.
func TestRunning(t *testing.T) {
	running := inline("careful", guidance.TypeAction, guidance.Running, guidance.Must, "Do not call work again while it runs.")
	running.On = guidance.Tool("work")
	p := guidance.New(guidance.Config{Hooks: []guidance.Hook{running}})
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		return framework.AddToolFunc(s, &mcp.Tool{Name: "work"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (noteOut, error) {
			return noteOut{Saved: p.Running(ctx)}, nil
		})
	})
	want := compose(guidance.Env{}, running)
	for _, overHTTP := range []bool{false, true} {
		cs, l := connect(t, srv, client{logLevel: "info", http: overHTTP})
		var out noteOut
		res, _ := call(t, cs, &mcp.CallToolParams{Name: "work"})
		if b, _ := json.Marshal(res.StructuredContent); json.Unmarshal(b, &out) != nil || out.Saved != want {
			t.Errorf("http=%v: the tool read %q, want %q", overHTTP, out.Saved, want)
		}
		m := l.wait(t, "running guidance", func(m *mcp.LoggingMessageParams) bool { l, _ := guidanceOf(m); return l == "running" })
		if _, got := guidanceOf(m); got != want || m.Level != "info" || m.Data.(map[string]any)["tool"] != "work" {
			t.Errorf("http=%v: log %+v", overHTTP, m)
		}
	}
}

// TestProgress: the progress notifications a tool call sends, whoever
// sends them (framework.Progress, the session's NotifyProgress), carry the
// call's progress guidance, each hook once; a hook tied to the request
// mid-way goes out with the next notification and is gone after the call.
func TestProgress(t *testing.T) {
	first := inline("progress-first", guidance.TypeAction, guidance.Progress, guidance.Should, "Tell the user it is under way.")
	first.On = guidance.Tool("slow")
	late := inline("progress-late", guidance.TypeAction, guidance.Progress, guidance.Must, "Almost done: do not cancel.")
	p := guidance.New(guidance.Config{Hooks: []guidance.Hook{first}})
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		return errors.Join(
			framework.AddToolFunc(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (noteOut, error) {
				c := flows.FromContext(ctx)
				if err := framework.Progress(c, 1, 3, "one"); err != nil {
					return noteOut{}, err
				}
				if err := p.AddForRequest(ctx, late); err != nil {
					return noteOut{}, err
				}
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 2, Total: 3, Message: "two"})
				if err != nil {
					return noteOut{}, err
				}
				return noteOut{Saved: "done"}, framework.Progress(c, 3, 3, "three")
			}),
			// A tool without progress guidance: its notifications pass as
			// they are.
			framework.AddToolFunc(s, &mcp.Tool{Name: "plain"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (noteOut, error) {
				return noteOut{}, framework.Progress(flows.FromContext(ctx), 1, 1, "plain")
			}),
		)
	})
	var mu sync.Mutex
	got := map[string]string{}
	all := make(chan struct{}, 4)
	cs, _ := connect(t, srv, client{progress: func(pn *mcp.ProgressNotificationParams) {
		mu.Lock()
		got[fmt.Sprint(pn.ProgressToken, "/", pn.Progress)] = pn.Message
		mu.Unlock()
		all <- struct{}{}
	}})
	for _, tool := range []string{"slow", "plain"} {
		params := &mcp.CallToolParams{Name: tool}
		params.SetProgressToken(tool)
		if res, texts := call(t, cs, params); res.IsError {
			t.Fatalf("call failed: %q", texts)
		}
	}
	for range 4 {
		select {
		case <-all:
		case <-time.After(30 * time.Second):
			t.Fatal("missing progress notifications")
		}
	}
	want := map[string]string{
		"slow/1":  "one\n\n" + compose(guidance.Env{}, first),
		"slow/2":  "two\n\n" + compose(guidance.Env{}, late),
		"slow/3":  "three",
		"plain/1": "plain",
	}
	mu.Lock()
	defer mu.Unlock()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("progress %v: %q, want %q", k, got[k], w)
		}
	}
	if n := len(p.Registry().Query(guidance.Query{Tag: "progress-late"})); n != 0 {
		t.Errorf("%d request-tied hooks left after the call", n)
	}
}

// TestSampling: a sampling request a tool call makes carries the call's
// running guidance in its system prompt, after the tool's own.
func TestSampling(t *testing.T) {
	running := inline("careful", guidance.TypeAction, guidance.Running, guidance.Must, "Summarize without inventing.")
	running.On = guidance.Tool("summarize")
	p := guidance.New(guidance.Config{Hooks: []guidance.Hook{running}})
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		return framework.AddToolFunc(s, &mcp.Tool{Name: "summarize"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (noteOut, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{SystemPrompt: "You summarize notes.", MaxTokens: 100,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "milk, eggs"}}}})
			if err != nil {
				return noteOut{}, err
			}
			return noteOut{Saved: res.Content.(*mcp.TextContent).Text}, nil
		})
	})
	prompts := make(chan string, 1)
	l := newLogs()
	opts := &mcp.ClientOptions{LoggingMessageHandler: l.handler, CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		prompts <- req.Params.SystemPrompt
		return &mcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &mcp.TextContent{Text: "a summary"}}, nil
	}}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sampler", Version: "1"}, opts).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, got := call(t, cs, &mcp.CallToolParams{Name: "summarize"})
	if res.IsError {
		t.Fatalf("call failed: %q", got)
	}
	if want := "You summarize notes.\n\n" + compose(guidance.Env{}, running); <-prompts != want {
		t.Errorf("the sampling request's system prompt lacks the running guidance; want %q", want)
	}
}

// TestCancel: a call the client cancels gets no result; its cancel
// guidance goes to the client's log and into the session's next tool
// result. A call that times out gets it in its isError result.
func TestCancel(t *testing.T) {
	cancel := inline("cleanup", guidance.TypeAction, guidance.Cancel, guidance.Must, "Check whether the partial write happened.")
	end := inline("done", guidance.TypeAction, guidance.End, guidance.Should, "Report the result.")
	p := guidance.New(guidance.Config{Hooks: []guidance.Hook{cancel, end}})
	started := make(chan struct{}, 1)
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		block := func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (noteOut, error) {
			started <- struct{}{}
			<-ctx.Done()
			return noteOut{}, ctx.Err()
		}
		return errors.Join(
			framework.AddToolFunc(s, &mcp.Tool{Name: "block"}, block),
			framework.AddTool(s, framework.Tool[struct{}, struct{}, noteOut]{Tool: &mcp.Tool{Name: "timeout"}, Timeout: 50 * time.Millisecond,
				Execute: func(_ struct{}, ctx context.Context, req *mcp.CallToolRequest, in struct{}) (noteOut, error) {
					return block(ctx, req, in)
				}}),
			framework.AddToolFunc(s, &mcp.Tool{Name: "quick"}, func(context.Context, *mcp.CallToolRequest, struct{}) (noteOut, error) {
				return noteOut{Saved: "ok"}, nil
			}),
		)
	})
	want := compose(guidance.Env{}, cancel)
	cs, l := connect(t, srv, client{logLevel: "info"})

	ctx, stop := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		errc <- err
	}()
	<-started
	stop()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	m := l.wait(t, "cancel guidance", func(m *mcp.LoggingMessageParams) bool { l, _ := guidanceOf(m); return l == "cancel" })
	if _, got := guidanceOf(m); got != want {
		t.Errorf("logged cancel guidance %q, want %q", got, want)
	}
	// The server may still be finishing the cancelled call: its finally
	// queues the guidance before it logs it, so it is queued now.
	_, got := call(t, cs, &mcp.CallToolParams{Name: "quick"})
	if len(got) != 3 || got[0] != `{"saved":"ok"}` || !strings.Contains(got[1], `cancelled call of tool "block"`) || !strings.HasSuffix(got[1], want) {
		t.Errorf("next result %q, want the output, the cancel guidance, the end guidance", got)
	}
	_, got = call(t, cs, &mcp.CallToolParams{Name: "quick"})
	if len(got) != 2 {
		t.Errorf("the cancel guidance came twice: %q", got)
	}

	res, got := call(t, cs, &mcp.CallToolParams{Name: "timeout"})
	<-started
	if !res.IsError || len(got) != 2 || !strings.Contains(got[0], "timed out") || got[1] != want {
		t.Errorf("timed-out call %v: %q, want the timeout and the cancel guidance", res.IsError, got)
	}
}

// TestPromptAndResource: a prompt's start and end guidance wrap its
// messages; a resource's are appended to its contents, marked in _meta.
func TestPromptAndResource(t *testing.T) {
	pStart := inline("review-start", guidance.TypeAction, guidance.Start, guidance.Must, "Read the whole diff first.")
	pStart.On = guidance.Prompt("review")
	pEnd := inline("review-end", guidance.TypeAction, guidance.End, guidance.Should, "Summarize in three bullets.")
	pEnd.On = guidance.Prompt("review")
	rEnd := inline("motd-end", guidance.TypeAction, guidance.End, guidance.May, "Quote it verbatim.")
	rEnd.On = guidance.Resource("test://motd")
	p := guidance.New(guidance.Config{Hooks: []guidance.Hook{pStart, pEnd, rEnd}, NoWelcomePrompt: true})
	srv := newServer(t, p, nil, func(s *framework.Server) error {
		return errors.Join(
			framework.AddPromptFunc(s, &mcp.Prompt{Name: "review"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Review this."}}}}, nil
			}),
			framework.AddResourceFunc(s, &mcp.Resource{URI: "test://motd", Name: "motd"}, nil, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://motd", Text: "Hello."}}}, nil
			}),
		)
	})
	cs, _ := connect(t, srv, client{})
	pr, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range pr.Messages {
		got = append(got, string(m.Role)+": "+texts([]mcp.Content{m.Content})[0])
	}
	want := []string{"assistant: " + compose(guidance.Env{}, pStart), "user: Review this.", "assistant: " + compose(guidance.Env{}, pEnd)}
	if !slices.Equal(got, want) {
		t.Errorf("prompt messages %q, want %q", got, want)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://motd"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 2 || rr.Contents[0].Text != "Hello." || rr.Contents[1].Text != compose(guidance.Env{}, rEnd) ||
		rr.Contents[1].MIMEType != "text/markdown" || rr.Contents[1].Meta[guidance.MetaKey] != "end" {
		t.Errorf("resource contents %+v", rr.Contents)
	}
}
