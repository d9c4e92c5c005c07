package framework

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/suggest"
	"github.com/hookflow/hookflow/scope"
)

// Explain returns the ordered hook plan the server runs for flow: for a
// flow with an entity, the plan of the entity named entity (a tool or
// prompt name, a resource URI or URI template; completion:complete takes a
// prompt name or a resource URI); for a flow without one, entity must be
// "". The text is what hookgen -explain prints, for the hooks actually
// registered (plugins, apps and hooks added in code included): a title
// line, then per stage the hooks in run order with their priority (named
// positions by name), ID, and timeout and failure policy.
//
// It is read-only and may be called at any time after Start; the plan is
// the one the next request will use. An unknown flow is a CodeInvalid
// error and an unknown entity a CodeNotFound error, each with a "did you
// mean" hint when a name is close.
func (s *Server) Explain(flow flows.ID, entity string) (string, error) {
	p, title, err := s.plan(flow, entity)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(title + "\n")
	err = p.Explain(&b)
	return b.String(), err
}

// Plan returns the compiled plan that [Server.Explain] prints, as data:
// for each stage, the hooks in run order with their IDs and priorities.
// It takes the same arguments, returns the same errors, and the plan is
// shared by runs: it must not be modified.
func (s *Server) Plan(flow flows.ID, entity string) (*flows.Plan, error) {
	p, _, err := s.plan(flow, entity)
	return p, err
}

// plan finds the plan of flow for entity and its Explain title line.
func (s *Server) plan(flow flows.ID, entity string) (*flows.Plan, string, error) {
	info, ok := flowInfo(flow)
	if !ok {
		_, err := flows.Parse(string(flow))
		return nil, "", &flows.Error{Code: flows.CodeInvalid, Msg: "Explain: " + err.Error()}
	}
	if !s.isStarted() {
		return nil, "", &flows.Error{Code: flows.CodeInvalid, Flow: flow, Msg: "Explain: the server has not started"}
	}
	if info.Entity == flows.EntityNone {
		if entity != "" {
			return nil, "", &flows.Error{Code: flows.CodeInvalid, Flow: flow, Msg: fmt.Sprintf("Explain: %s resolves no entity, so entity must be empty, got %q", flow, entity)}
		}
		return s.lists[flow.Index()].Load(), fmt.Sprintf("%s (every request)", flow), nil
	}
	e, sc, err := s.explainEntity(flow, info.Entity, entity)
	if err != nil {
		return nil, "", err
	}
	return s.scope.Plan(flow, e, sc).Load(), fmt.Sprintf("%s %s %s", flow, e.Kind, e.Name), nil
}

// explainEntity finds the entity a plan of flow is explained for.
func (s *Server) explainEntity(flow flows.ID, kind flows.EntityKind, name string) (*flows.Entity, *scope.Scope, error) {
	ix := s.index.Load()
	switch kind {
	case flows.EntityTool:
		if t := ix.tools[name]; t != nil {
			return t.entity, t.scope, nil
		}
		return nil, nil, unknownEntity(flow, "tool", name, slices.Collect(maps.Keys(ix.tools)))
	case flows.EntityPrompt:
		if p := ix.prompts[name]; p != nil {
			return p.entity, p.scope, nil
		}
		return nil, nil, unknownEntity(flow, "prompt", name, slices.Collect(maps.Keys(ix.prompts)))
	case flows.EntityResource:
		if r := ix.resources[name]; r != nil {
			return r.entity, r.scope, nil
		}
		return nil, nil, unknownEntity(flow, "resource", name, slices.Collect(maps.Keys(ix.resources)))
	}
	// completion:complete: a prompt or a resource.
	if p := ix.prompts[name]; p != nil {
		return p.entity, p.scope, nil
	}
	if r := ix.resources[name]; r != nil {
		return r.entity, r.scope, nil
	}
	return nil, nil, unknownEntity(flow, "prompt or resource", name, append(slices.Collect(maps.Keys(ix.prompts)), slices.Collect(maps.Keys(ix.resources))...))
}

func unknownEntity(flow flows.ID, what, name string, known []string) error {
	msg := fmt.Sprintf("Explain: no %s %q", what, name)
	if near, ok := suggest.Closest(name, known); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return &flows.Error{Code: flows.CodeNotFound, Flow: flow, Msg: msg}
}

// flowInfo returns the flow table's row of id.
func flowInfo(id flows.ID) (flows.Info, bool) {
	i := id.Index()
	if i < 0 {
		return flows.Info{}, false
	}
	return flows.All()[i], true
}

// isStarted reports whether Start has run.
func (s *Server) isStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}
