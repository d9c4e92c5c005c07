// Package configtest reads the errors of a plugin configuration's
// Validate in tests: an errors.Join of *flows.Error values with code
// invalid, each naming a Field.
package configtest

import (
	"errors"
	"testing"

	"github.com/hookflow/hookflow/flows"
)

// FieldErr is one error of a Validate result, as a test table writes it:
// the field's path in the file's spelling, then the message. (An array, so
// that tables in other packages write {"field", "message"}.)
type FieldErr [2]string

// FieldErrs flattens err (nil, one *flows.Error, or an errors.Join of
// them) into fields and messages, failing t on an error that is not a
// CodeInvalid *flows.Error.
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
			t.Fatalf("%v: want a *flows.Error of code invalid", e)
		}
		out = append(out, FieldErr{fe.Field, fe.Reason()})
	}
	return out
}

// Lines is FieldErrs as "field: message" lines.
func Lines(t testing.TB, err error) []string {
	t.Helper()
	var out []string
	for _, fe := range FieldErrs(t, err) {
		out = append(out, fe[0]+": "+fe[1])
	}
	return out
}
