package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Store keeps the memories of every project, in the order they were
// stored. It is safe for concurrent use.
type Store struct {
	mu       sync.Mutex
	memories []Memory
}

// Memory is one stored fact.
type Memory struct {
	Project string `json:"project" jsonschema:"the project the fact is about"`
	Fact    string `json:"fact" jsonschema:"one fact, in one sentence"`
}

// Stored says what store_memory stored.
type Stored struct {
	Count int `json:"count" jsonschema:"how many memories the project has now"`
}

// StoreMemory stores one fact about a project for future sessions.
//
//mcp:tool name=store_memory
//mcp:declare event=pre_tool_use context="Store one fact per memory, in a sentence that stands on its own."
type StoreMemory struct{ store *Store }

// NewStoreMemory builds the tool on the server's store.
func NewStoreMemory(s *Store) *StoreMemory { return &StoreMemory{store: s} }

// Execute stores the fact.
func (t *StoreMemory) Execute(_ context.Context, _ *mcp.CallToolRequest, in Memory) (Stored, error) {
	if strings.TrimSpace(in.Fact) == "" {
		return Stored{}, fmt.Errorf("the fact is empty")
	}
	t.store.mu.Lock()
	defer t.store.mu.Unlock()
	t.store.memories = append(t.store.memories, in)
	n := 0
	for _, m := range t.store.memories {
		if m.Project == in.Project {
			n++
		}
	}
	return Stored{Count: n}, nil
}

// Query is what search_memories looks for.
type Query struct {
	Query string `json:"query" jsonschema:"a project name, or words the facts contain"`
}

// SearchMemories returns the stored facts about a project, or containing
// the query's words.
//
//mcp:tool name=search_memories readonly
type SearchMemories struct{ store *Store }

// NewSearchMemories builds the tool on the server's store.
func NewSearchMemories(s *Store) *SearchMemories { return &SearchMemories{store: s} }

// Execute lists the matching facts, most recent first.
func (t *SearchMemories) Execute(_ context.Context, _ *mcp.CallToolRequest, in Query) (*mcp.CallToolResult, error) {
	t.store.mu.Lock()
	defer t.store.mu.Unlock()
	var lines []string
	for i := len(t.store.memories) - 1; i >= 0; i-- {
		m := t.store.memories[i]
		if strings.EqualFold(m.Project, in.Query) || in.Query != "" && strings.Contains(strings.ToLower(m.Fact), strings.ToLower(in.Query)) {
			lines = append(lines, "- "+m.Fact)
		}
	}
	text := fmt.Sprintf("No memories about %q yet.", in.Query)
	if len(lines) > 0 {
		text = fmt.Sprintf("Memories about %q:\n%s", in.Query, strings.Join(lines, "\n"))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}
