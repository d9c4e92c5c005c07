package framework

import (
	"fmt"

	"github.com/hookflow/hookflow/flows"
)

// RemoveTool removes the tool named name, whether the server or one of its
// apps owns it, and the SDK tells clients the list changed. It is for
// entities that come and go while the server runs (the gateway mirrors an
// upstream server's lists); before Start, or for a name the server does not
// know, it returns a CodeNotFound error.
func (s *Server) RemoveTool(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.index.Load().tools[name]; !ok || !s.started {
		return notFound("tool", name)
	}
	s.update(func(ix *entityIndex) { delete(ix.tools, name) })
	s.sdk.RemoveTools(name)
	return nil
}

// RemovePrompt removes the prompt named name, as [Server.RemoveTool] does
// a tool.
func (s *Server) RemovePrompt(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.index.Load().prompts[name]; !ok || !s.started {
		return notFound("prompt", name)
	}
	s.update(func(ix *entityIndex) { delete(ix.prompts, name) })
	s.sdk.RemovePrompts(name)
	return nil
}

// RemoveResource removes the resource of URI key, or the resource template
// of URI template key, as [Server.RemoveTool] does a tool.
func (s *Server) RemoveResource(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.index.Load().resources[key]
	if !ok || !s.started {
		return notFound("resource", key)
	}
	s.update(func(ix *entityIndex) { delete(ix.resources, key) })
	if e.entity.Template != nil {
		s.sdk.RemoveResourceTemplates(key)
	} else {
		s.sdk.RemoveResources(key)
	}
	return nil
}

func notFound(kind, name string) error {
	return &flows.Error{Code: flows.CodeNotFound, Msg: fmt.Sprintf("no %s %q on the started server", kind, name)}
}
