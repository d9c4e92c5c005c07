package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// Notes is the server's note store, in memory: what the storage guidance
// warns about.
type Notes struct {
	mu    sync.Mutex
	notes map[string]string
}

// NewNotes returns an empty store.
func NewNotes() *Notes { return &Notes{notes: map[string]string{}} }

func (n *Notes) save(title, text string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes[title] = text
	return len(n.notes)
}

func (n *Notes) titles() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, 0, len(n.notes))
	for t := range n.notes {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// SessionInit starts the session: the tool the session gate waits for.
//
//mcp:tool name=session_init idempotent
type SessionInit struct{}

// SessionInitIn is session_init's input.
type SessionInitIn struct {
	// User is who the model works for, e.g. a first name.
	User string `json:"user,omitempty" jsonschema:"who the notes are for"`
}

// Execute greets the session.
func (SessionInit) Execute(ctx context.Context, req *mcp.CallToolRequest, in SessionInitIn) (*mcp.CallToolResult, error) {
	who := in.User
	if who == "" {
		who = "you"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Session started for " + who + "."}}}, nil
}

// SaveNote saves a note under a title, replacing one of the same title.
//
//mcp:tool name=save_note
//mcp:guidance tag=save-note lifecycle=end level=SHOULD name="After saving"
//mcp:guidance tag=save-memory type=storage lifecycle=end level=MUST name="Notes in memory" storage=memory
type SaveNote struct{ notes *Notes }

// NewSaveNote returns the tool with the server's store.
func NewSaveNote(n *Notes) *SaveNote { return &SaveNote{notes: n} }

// SaveIn is save_note's input.
type SaveIn struct {
	Title string `json:"title" jsonschema:"the note's title"`
	Text  string `json:"text" jsonschema:"the note"`
}

// SaveOut is save_note's output.
type SaveOut struct {
	Saved string `json:"saved"`
	Notes int    `json:"notes"`
}

// Execute saves the note.
func (t *SaveNote) Execute(ctx context.Context, req *mcp.CallToolRequest, in SaveIn) (SaveOut, error) {
	if strings.TrimSpace(in.Title) == "" {
		return SaveOut{}, fmt.Errorf("a note needs a title")
	}
	return SaveOut{Saved: in.Title, Notes: t.notes.save(in.Title, in.Text)}, nil
}

// ListNotes lists the notes' titles.
//
//mcp:tool name=list_notes readonly
//mcp:guidance tag=list-notes lifecycle=end level=MAY name="Summaries" features=sampling
type ListNotes struct{ notes *Notes }

// NewListNotes returns the tool with the server's store.
func NewListNotes(n *Notes) *ListNotes { return &ListNotes{notes: n} }

// ListOut is list_notes's output.
type ListOut struct {
	Titles []string `json:"titles"`
}

// Execute lists the titles.
func (t *ListNotes) Execute(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (ListOut, error) {
	return ListOut{Titles: t.notes.titles()}, nil
}

// ImportNotes imports numbered notes, one at a time, reporting progress.
//
//mcp:tool name=import_notes
//mcp:guidance tag=import-running lifecycle=running level=MUST-NOT name="While importing"
//mcp:guidance tag=import-progress lifecycle=progress level=SHOULD name="Progress"
//mcp:guidance tag=import-cancel lifecycle=cancel level=MUST name="After a cancelled import"
type ImportNotes struct {
	notes *Notes
	// step, when set, is called before each note is imported: the demo
	// uses it to cancel an import half-way.
	step func(ctx context.Context, i int) error
}

// NewImportNotes returns the tool with the server's store.
func NewImportNotes(n *Notes, step ImportStep) *ImportNotes {
	return &ImportNotes{notes: n, step: step}
}

// ImportStep is called before each note import_notes imports; nil does
// nothing.
type ImportStep func(ctx context.Context, i int) error

// ImportIn is import_notes's input.
type ImportIn struct {
	Count int `json:"count" jsonschema:"how many notes to import"`
}

// ImportOut is import_notes's output.
type ImportOut struct {
	Imported int `json:"imported"`
}

// Execute imports the notes; it stops when the call is cancelled.
func (t *ImportNotes) Execute(ctx context.Context, req *mcp.CallToolRequest, in ImportIn) (ImportOut, error) {
	for i := 1; i <= in.Count; i++ {
		if t.step != nil {
			if err := t.step(ctx, i); err != nil {
				return ImportOut{Imported: i - 1}, err
			}
		}
		if err := ctx.Err(); err != nil {
			return ImportOut{Imported: i - 1}, err
		}
		t.notes.save(fmt.Sprintf("imported %d", i), "")
		// The guidance plugin appends the call's progress guidance to the
		// notification's message.
		if err := framework.Progress(flows.FromContext(ctx), float64(i), float64(in.Count), fmt.Sprintf("imported %d of %d", i, in.Count)); err != nil {
			return ImportOut{Imported: i}, err
		}
	}
	return ImportOut{Imported: in.Count}, nil
}

// ServerInfo says what the server is; it needs no session.
//
//mcp:tool name=server_info readonly idempotent
type ServerInfo struct{}

// Execute describes the server.
func (ServerInfo) Execute(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "A notes server with guidance and a session gate."}}}, nil
}

// Summarize asks the model to summarize the notes.
//
//mcp:prompt name=summarize
//mcp:guidance tag=summarize lifecycle=start level=MUST name="Sources"
type Summarize struct{ notes *Notes }

// NewSummarize returns the prompt with the server's store.
func NewSummarize(n *Notes) *Summarize { return &Summarize{notes: n} }

// Get renders the prompt.
func (p *Summarize) Get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
		Content: &mcp.TextContent{Text: "Summarize my notes: " + strings.Join(p.notes.titles(), ", ") + "."}}}}, nil
}
