package plugintest

import (
	"errors"
	"testing"

	"github.com/hookflow/hookflow/flows"
)

// FieldErr is one error of a configuration's Validate, as a test table
// writes it: the field's path in the file's spelling, then the message.
// (An array, so that tables in other packages write {"field", "message"}.)
type FieldErr [2]string

// FieldErrs flattens err, a Config.Validate result (nil, one *flows.Error,
// or an errors.Join of them), into fields and messages in order. It fails
// t on an error that is not a *flows.Error of code invalid, which is what
// a plugin's Validate owes hookflow.
func FieldErrs(t testing.TB, err error) []FieldErr {
	t.Helper()
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var out []FieldErr
	for _, e := range errs {
		var fe *flows.Error
		if !errors.As(e, &fe) || fe.Code != flows.CodeInvalid {
			t.Fatalf("plugintest: %v: want a *flows.Error of code invalid", e)
		}
		out = append(out, FieldErr{fe.Field, fe.Reason()})
	}
	return out
}

// FieldLines is [FieldErrs] as "field: message" lines.
func FieldLines(t testing.TB, err error) []string {
	t.Helper()
	var out []string
	for _, fe := range FieldErrs(t, err) {
		out = append(out, fe[0]+": "+fe[1])
	}
	return out
}
