package interceptplan_test

import (
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/interceptplan"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Each flow maps to its SEP-2624 event (or none), and the side that
// receives a payload validates it before mutating it.
func TestPlan(t *testing.T) {
	tests := []struct {
		flow                 flows.ID
		event                string
		ok                   bool
		receivesReq, recvRes bool
	}{
		{flows.ToolsCallTool, "tools/call", true, true, false},
		{flows.SamplingCreateMessage, "sampling/createMessage", true, false, true},
		{flows.SessionPing, "", false, true, false},
		{"no:such-flow", "", false, false, false},
	}
	for _, tt := range tests {
		event, ok := interceptplan.Event(tt.flow)
		if event != tt.event || ok != tt.ok {
			t.Errorf("Event(%s) = %q, %v; want %q, %v", tt.flow, event, ok, tt.event, tt.ok)
		}
		if !tt.flow.Valid() {
			continue
		}
		if got := interceptplan.Receiving(tt.flow, false); got != tt.receivesReq {
			t.Errorf("Receiving(%s, request) = %v", tt.flow, got)
		}
		if got := interceptplan.Receiving(tt.flow, true); got != tt.recvRes {
			t.Errorf("Receiving(%s, response) = %v", tt.flow, got)
		}
	}
	if s, p := interceptplan.Where(false); s != stages.BeforeExecute || p != priority.InterceptRequest {
		t.Errorf("Where(request) = %v, %d", s, p)
	}
	if s, p := interceptplan.Where(true); s != stages.AfterExecute || p != priority.InterceptResponse {
		t.Errorf("Where(response) = %v, %d", s, p)
	}
}
