package flows_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

func TestErrorText(t *testing.T) {
	cause := errors.New(`missing scope "admin"`)
	tests := []struct {
		name string
		err  *flows.Error
		want string
	}{
		{"hook aborted", &flows.Error{Code: flows.CodeAborted, Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Hook: "auth.scopes", Err: cause},
			`hookflow: tools:call-tool beforeExecute: hook "auth.scopes" aborted: missing scope "admin"`},
		{"hook panicked", &flows.Error{Code: flows.CodePanic, Flow: flows.PromptsGetPrompt, Stage: stages.OnError, Hook: "h", Err: &flows.PanicError{Value: "boom"}},
			`hookflow: prompts:get-prompt onError: hook "h" panicked: panic: boom`},
		{"hook canceled", &flows.Error{Code: flows.CodeCanceled, Flow: flows.ToolsCallTool, Stage: stages.AfterValidation, Hook: "h", Err: context.Canceled},
			`hookflow: tools:call-tool afterValidation: hook "h" canceled: context canceled`},
		{"hook not allowed", &flows.Error{Code: flows.CodeNotAllowed, Flow: flows.ToolsCallTool, Stage: stages.Finally, Hook: "h"},
			`hookflow: tools:call-tool finally: hook "h" was not allowed`},
		{"hook failed", &flows.Error{Code: flows.CodeDuplicate, Flow: flows.ToolsCallTool, Stage: stages.Finally, Hook: "h", Msg: "already registered"},
			`hookflow: tools:call-tool finally: hook "h" failed: already registered`},
		{"hook limited", &flows.Error{Code: flows.CodeLimited, Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Hook: "quota", Err: errors.New("over quota")},
			`hookflow: tools:call-tool beforeValidation: hook "quota" refused over a limit: over quota`},
		{"limited, hook unnamed", &flows.Error{Code: flows.CodeLimited, Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Err: errors.New("over quota")},
			`hookflow: tools:call-tool: limited: over quota`},
		{"step rejected input", &flows.Error{Code: flows.CodeInvalidInput, Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Step: "validate", Err: errors.New("city is required")},
			`hookflow: tools:call-tool: validate rejected the input: city is required`},
		{"step failed", &flows.Error{Code: flows.CodeFailed, Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Step: "execute", Err: errors.New("upstream down")},
			`hookflow: tools:call-tool: execute failed: upstream down`},
		{"step panicked", &flows.Error{Code: flows.CodePanic, Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Step: "execute", Err: &flows.PanicError{Value: 42}},
			`hookflow: tools:call-tool: execute panicked: panic: 42`},
		{"flow without hook or step", &flows.Error{Code: flows.CodeInvalid, Flow: flows.ToolsListTools, Msg: "bad option"},
			`hookflow: tools:list-tools: invalid: bad option`},
		{"no flow", &flows.Error{Code: flows.CodeNotFound, Hook: "x", Msg: "no hook with this ID is registered"},
			`hookflow: hook "x" failed: no hook with this ID is registered`},
		{"code only", &flows.Error{Code: flows.CodeInvalid, Msg: "a child scope cannot be a root scope"},
			`hookflow: invalid: a child scope cannot be a root scope`},
		{"msg and err", &flows.Error{Code: flows.CodeInvalid, Msg: "m", Err: io.EOF},
			`hookflow: invalid: m: EOF`},
		{"bare", &flows.Error{},
			`hookflow: unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error():\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestErrorUnwrapCodeReason(t *testing.T) {
	cause := errors.New("quota exceeded")
	inner := &flows.Error{Code: flows.CodeAborted, Flow: flows.ToolsCallTool, Hook: "quota", Err: cause}
	tests := []struct {
		name       string
		err        error
		wantCode   flows.Code
		wantReason string
		wantIs     error
	}{
		{"nil", nil, flows.CodeUnknown, "", nil},
		{"plain", cause, flows.CodeUnknown, "quota exceeded", cause},
		{"*Error", inner, flows.CodeAborted, "quota exceeded", cause},
		{"wrapped *Error", fmt.Errorf("serving: %w", inner), flows.CodeAborted, "quota exceeded", cause},
		{"*Error in *Error", &flows.Error{Code: flows.CodeFailed, Err: inner}, flows.CodeFailed, "quota exceeded", cause},
		// A panic's value may hold secrets: clients read only "internal error".
		{"panic around *Error", &flows.Error{Code: flows.CodePanic, Err: inner}, flows.CodePanic, "internal error", cause},
		{"Msg only", &flows.Error{Code: flows.CodeInvalid, Msg: "nil hook function"}, flows.CodeInvalid, "nil hook function", nil},
		{"code only", &flows.Error{Code: flows.CodeCanceled}, flows.CodeCanceled, "canceled", nil},
		// A limit's reason is its cause's text: what the model reads.
		{"limited", fmt.Errorf("run: %w", &flows.Error{Code: flows.CodeLimited, Flow: flows.ToolsCallTool, Err: cause}), flows.CodeLimited, "quota exceeded", cause},
		{"panic with error", &flows.Error{Code: flows.CodePanic, Err: &flows.PanicError{Value: cause}}, flows.CodePanic, "internal error", cause},
		{"panic with string", &flows.Error{Code: flows.CodePanic, Err: &flows.PanicError{Value: "boom"}}, flows.CodePanic, "internal error", nil},
		{"panic with a secret", &flows.Error{Code: flows.CodePanic, Err: &flows.PanicError{Value: "dsn=postgres://u:pw@h"}}, flows.CodePanic, "internal error", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := flows.CodeOf(tt.err); got != tt.wantCode {
				t.Errorf("CodeOf = %v, want %v", got, tt.wantCode)
			}
			if got := flows.Reason(tt.err); got != tt.wantReason {
				t.Errorf("Reason = %q, want %q", got, tt.wantReason)
			}
			if tt.wantIs != nil && !errors.Is(tt.err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", tt.err, tt.wantIs)
			}
			var e *flows.Error
			if errors.As(tt.err, &e) {
				if got := e.Reason(); got != tt.wantReason {
					t.Errorf("(*Error).Reason = %q, want %q", got, tt.wantReason)
				}
			}
		})
	}

	if got := inner.Unwrap(); got != cause {
		t.Errorf("Unwrap() = %v, want the cause", got)
	}
	if got := (&flows.Error{Code: flows.CodeInvalid}).Unwrap(); got != nil {
		t.Errorf("Unwrap() of an error without cause = %v", got)
	}
}

func TestPanicError(t *testing.T) {
	cause := errors.New("disk on fire")
	tests := []struct {
		name       string
		value      any
		wantText   string
		wantUnwrap error
	}{
		{"error value", cause, "panic: disk on fire", cause},
		{"string value", "boom", "panic: boom", nil},
		{"int value", 7, "panic: 7", nil},
		{"wrapped error value", fmt.Errorf("ctx: %w", io.EOF), "panic: ctx: EOF", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &flows.PanicError{Value: tt.value, Stack: []byte("goroutine 1 [running]:")}
			if got := p.Error(); got != tt.wantText {
				t.Errorf("Error() = %q, want %q", got, tt.wantText)
			}
			if tt.wantUnwrap != nil {
				if got := p.Unwrap(); got != tt.wantUnwrap {
					t.Errorf("Unwrap() = %v, want %v", got, tt.wantUnwrap)
				}
				if !errors.Is(p, tt.wantUnwrap) {
					t.Error("errors.Is does not see through the PanicError")
				}
			}
			if err, ok := tt.value.(error); ok {
				if p.Unwrap() != err {
					t.Errorf("Unwrap() = %v, want the panic value", p.Unwrap())
				}
				return
			}
			if got := p.Unwrap(); got != nil {
				t.Errorf("Unwrap() of a non-error panic = %v, want nil", got)
			}
		})
	}
	if !errors.Is(&flows.PanicError{Value: fmt.Errorf("ctx: %w", io.EOF)}, io.EOF) {
		t.Error("errors.Is does not see through a PanicError holding a wrapped error")
	}
}

func TestCodeString(t *testing.T) {
	tests := []struct {
		c    flows.Code
		want string
	}{
		{flows.CodeUnknown, "unknown"},
		{flows.CodeInvalid, "invalid"},
		{flows.CodeDuplicate, "duplicate"},
		{flows.CodeNotFound, "not_found"},
		{flows.CodeInvalidInput, "invalid_input"},
		{flows.CodeAborted, "aborted"},
		{flows.CodePanic, "panic"},
		{flows.CodeCanceled, "canceled"},
		{flows.CodeNotAllowed, "not_allowed"},
		{flows.CodeFailed, "failed"},
		{flows.CodeTimeout, "timeout"},
		{flows.CodeLimited, "limited"},
		{flows.Code(99), "Code(99)"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("Code(%d).String() = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestErrAborted(t *testing.T) {
	if flows.ErrAborted == nil || flows.ErrAborted.Error() != "aborted by hook" {
		t.Errorf("ErrAborted = %v", flows.ErrAborted)
	}
}

func TestErrorField(t *testing.T) {
	err := &flows.Error{Code: flows.CodeInvalid, Field: "tokens[0].user", Msg: "must not be empty"}
	if got, want := err.Error(), "hookflow: invalid: tokens[0].user: must not be empty"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestErrorWrappingFieldErrors(t *testing.T) {
	fields := errors.Join(
		&flows.Error{Code: flows.CodeInvalid, Field: "async_timeout", Msg: "must not be negative, got -1ns"},
		&flows.Error{Code: flows.CodeInvalid, Field: "chain[0].name", Msg: "required"},
	)
	err := &flows.Error{Code: flows.CodeInvalid, Msg: `plugin "middleware" (s/plugin:middleware)`, Err: fields}
	want := `hookflow: invalid: plugin "middleware" (s/plugin:middleware): async_timeout: must not be negative, got -1ns; chain[0].name: required`
	if got := err.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}
