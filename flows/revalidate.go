package flows

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hookflow/hookflow/stages"
)

// Revalidate replaces a validated input with raw, the input in the form the
// client sends it (for tools/call, the JSON arguments), and runs the flow's
// validate step on it again, exactly as on the client's: a hook in
// afterValidation or beforeExecute that rewrites the arguments gets them
// checked against the entity's schema, with defaults applied, and decoded.
//
// On success the typed input ([Context.Input]) and [Context.Arguments] are
// the new ones, for the hooks that follow and for execute. On failure
// nothing changes and the validate step's error (an *[Error] with
// CodeInvalidInput) is returned; the hook decides what to do with it,
// typically fail the run. In any other stage Revalidate changes nothing
// and returns a CodeNotAllowed error: before validation, [Context.SetInput]
// is enough; after execute, the input no longer matters.
func (c *Context) Revalidate(raw any) error {
	if c.stage != stages.AfterValidation && c.stage != stages.BeforeExecute {
		return &Error{Code: CodeNotAllowed, Flow: c.flow, Stage: c.stage,
			Msg: fmt.Sprintf("Revalidate: only in %s or %s", stages.AfterValidation, stages.BeforeExecute)}
	}
	if c.steps == nil {
		c.input = raw
		if args, ok := raw.(json.RawMessage); ok {
			c.args = args
		}
		return nil
	}
	old := c.input
	c.input = raw
	in, args, err := c.steps.Validate(c)
	if err != nil {
		c.input = old
		if _, ok := errors.AsType[*Error](err); ok {
			return err
		}
		return &Error{Code: CodeInvalidInput, Flow: c.flow, Stage: c.stage, Step: stepValidate.String(), Err: err}
	}
	c.input = in
	switch {
	case args != nil:
		c.args = args
	default:
		if a, ok := raw.(json.RawMessage); ok {
			c.args = a
		}
	}
	return nil
}
