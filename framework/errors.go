package framework

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/hookflow/hookflow/flows"
)

// CodeRefused is the JSON-RPC error code of a request that a hook refused
// (it returned an error or called Abort) in a flow that answers with
// protocol errors: every flow but tools:call-tool, whose refusals are
// isError results the model can read. It lies in JSON-RPC's range for
// server-defined errors, clear of the codes the MCP SDK gives meaning to
// (-32001 to -32005).
const CodeRefused = -32010

// protocolError returns the error a flow other than tools:call-tool sends:
//
//   - a *jsonrpc.Error found in err's chain, as it is;
//   - invalid input (CodeInvalidInput): -32602 invalid params;
//   - a hook's refusal (CodeAborted), or a budget's (CodeLimited):
//     [CodeRefused];
//   - a panic: -32603 "internal error" with the request ID, never the panic
//     value (that is logged);
//   - anything else: -32603 internal error with the reason.
func protocolError(err error, info *flows.Request) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return wire
	}
	code := int64(jsonrpc.CodeInternalError)
	switch flows.CodeOf(err) {
	case flows.CodeInvalidInput:
		code = jsonrpc.CodeInvalidParams
	case flows.CodeAborted, flows.CodeLimited:
		code = CodeRefused
	}
	return &jsonrpc.Error{Code: code, Message: clientReason(err, info)}
}

// clientReason returns what a client reads about err: [flows.Reason], and
// for a panic also the request ID, so that an operator can find the value
// and stack in the log.
func clientReason(err error, info *flows.Request) string {
	reason := flows.Reason(err)
	if flows.CodeOf(err) == flows.CodePanic && info != nil && info.ID != "" {
		reason += " (request " + info.ID + ")"
	}
	return reason
}
