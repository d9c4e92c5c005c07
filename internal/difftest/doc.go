// Package difftest sends one corpus of HTTP requests to two streamable HTTP
// handlers serving the same MCP server, hookflow's transport and the SDK's
// mcp.StreamableHTTPHandler, and reports where a client could tell them
// apart.
//
// A corpus is JSON lines, one [Case] a line: the steps of one exchange
// (HTTP method, headers, body), run in order on a fresh pair of handlers.
// Each step's answer is reduced to an [Outcome]: the HTTP status, the
// media type of Content-Type, whether Mcp-Session-Id is set, the
// WWW-Authenticate and Allow headers, and the JSON-RPC messages of the
// body, in any order, with error messages and data dropped (only codes
// are compared) and ids kept as sent.
//
// The outcomes of the two handlers must be equal, except where a [Row] of
// the table of deliberate differences says otherwise: a case marked with
// a row's id must show that row's difference (the SDK's answer and
// hookflow's, as [Outcome.Summary] words them), and nothing else may
// differ. A difference nobody listed fails, and so does a listed one that
// is gone. The table is read from Markdown ([LoadRows]): docs/conformance.md
// holds it, once, for readers and for the tests.
//
// Within a case, each step is sent once the answer to the one before is
// ready: read whole, paused on a request of the server's (which a later
// step answers, as a client would), or, for a GET or subscriptions/listen
// stream, open. Cases run one at a time, each on its own loopback
// servers; [Target.Run] is not safe for concurrent use.
package difftest
