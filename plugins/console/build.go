package console

import (
	"errors"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// maxText caps each text a run keeps besides its arguments and result:
// a reason, a decision's reason.
const maxText = 1 << 10

// build turns a finished run's record into the record the pages show, on
// the feed's goroutine: it decides the outcome as the audit plugin does,
// redacts and caps the arguments and the result.
func (p *Plugin) build(l *live) *record {
	r := &record{
		Start:     l.start,
		Duration:  l.dur,
		Flow:      string(l.flow),
		Entity:    capText(l.entity),
		Upstream:  upstreamOf(l.upstream),
		Principal: capText(l.principal),
		SessionID: l.session,
		RequestID: l.request,
		MoreSteps: l.more,
		TraceID:   l.traceID,
	}
	for i := range l.steps[:l.n] {
		s := &l.steps[i]
		stage := s.stage.String()
		if s.step != "" {
			stage = s.step // validate and execute are steps between stages
		}
		outcome := stepOutcome(s.outcome)
		if s.outcome == "respond" && s.stage == stages.OnError {
			outcome = stepRecovered
		}
		r.Steps = append(r.Steps, stepView{
			Stage: stage, Hook: s.hook, Step: s.step,
			Outcome: outcome, Reason: reasonOf(s.err),
			At: s.at, Dur: s.end - s.at,
		})
	}
	for _, d := range l.decisions {
		d.Reason = capText(d.Reason)
		r.Decisions = append(r.Decisions, d)
	}
	for _, f := range l.failures {
		s := stepView{Outcome: stepFailOpen, Reason: reasonOf(f)}
		var fe *flows.Error
		if errors.As(f, &fe) {
			s.Hook = fe.Hook
		}
		r.FailedOpen = append(r.FailedOpen, s)
	}
	r.outcome(l)
	switch {
	case len(l.args) > 0:
		r.Args = p.capJSON(p.redact.Redact(l.args))
	case l.prompt != nil && len(l.prompt.Arguments) > 0:
		args := make(map[string]any, len(l.prompt.Arguments))
		for k, v := range l.prompt.Arguments {
			args[k] = v
		}
		r.Args = p.capJSON(p.redact.RedactValue(args))
	}
	r.URI = capText(l.uri)
	switch {
	case l.result != nil:
		r.Result = p.capJSON(p.redact.Redact(l.result))
	case l.resultLen > 0:
		r.Result = "[a result of " + strconv.Itoa(l.resultLen) + " bytes: too long to redact]"
	}
	return r
}

// outcome sets how the run l ended: its outcome, what decided it and
// why.
func (r *record) outcome(l *live) {
	switch {
	case l.err != nil:
		r.Reason = reasonOf(l.err)
		by, code := "", flows.CodeOf(l.err)
		if l.stop != nil {
			by, code = l.stop.hook, stopCode(l.stop)
		}
		if by == "" {
			by = decidedBy(l.err)
		}
		r.DecidedBy = by
		if by != "" && (code == flows.CodeAborted || code == flows.CodeLimited) {
			r.Outcome = outcomeBlocked
		} else {
			r.Outcome = outcomeFailed
		}
	case l.answer != "":
		r.Outcome, r.DecidedBy = outcomeAnswered, l.answer
	case l.recovered != "":
		r.Outcome, r.DecidedBy = outcomeRecovered, l.recovered
		if l.stop != nil {
			r.Reason = reasonOf(l.stop.err) // what failed, not what the client read
		}
	default:
		r.Outcome = outcomeOK
		if l.isError {
			r.Outcome = outcomeFailed
			r.Reason = capText(l.errText)
		}
	}
}

// capJSON returns b as text, cut to Config.MaxBytes with a marker saying
// how long it was.
func (p *Plugin) capJSON(b []byte) string {
	if len(b) <= p.cfg.MaxBytes {
		return string(b)
	}
	cut := b[:p.cfg.MaxBytes]
	for len(cut) > 0 && !utf8.Valid(cut) {
		cut = cut[:len(cut)-1]
	}
	return string(cut) + " … [cut: " + strconv.Itoa(len(b)) + " bytes in all]"
}

// capText cuts s to maxText bytes.
func capText(s string) string {
	if len(s) <= maxText {
		return s
	}
	cut := s[:maxText]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + "…"
}

// reasonOf is what a client read of err, capped. An invalid input's
// reason may quote the value the caller sent (a password in the wrong
// field): it is shown by its code alone.
func reasonOf(err error) string {
	if err == nil {
		return ""
	}
	if flows.CodeOf(err) == flows.CodeInvalidInput {
		return "invalid input: the arguments do not match the input schema (the value is not shown)"
	}
	return capText(flows.Reason(err))
}

// stopCode is the code of the failure s stopped its run with: a hook's
// abort is CodeAborted unless its error is a *flows.Error with a code of
// its own (a rate limit's CodeLimited).
func stopCode(s *liveStep) flows.Code {
	var e *flows.Error
	if errors.As(s.err, &e) {
		return e.Code
	}
	if s.outcome == "abort" {
		return flows.CodeAborted
	}
	return flows.CodeOf(s.err)
}

// decidedBy returns the hook an *flows.Error names, or "".
func decidedBy(err error) string {
	var e *flows.Error
	if errors.As(err, &e) {
		return e.Hook
	}
	return ""
}

func resultText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// upstreamOf returns the upstream an entity's instance names: the
// gateway mounts each upstream entity as a value with a string field
// Upstream (its Mounted), which the console reads without importing the
// gateway.
func upstreamOf(v any) string {
	if v == nil {
		return ""
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return ""
	}
	f := rv.Elem().FieldByName("Upstream")
	if !f.IsValid() || f.Kind() != reflect.String {
		return ""
	}
	return capText(f.String())
}
