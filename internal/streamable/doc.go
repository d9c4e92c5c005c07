// Package streamable is hookflow's streamable HTTP transport for MCP
// servers, on the SDK's public mcp.Transport and mcp.Connection
// interfaces: the SDK's mcp.Server still runs every session (protocol
// behaviour stays the SDK's), while the HTTP handler, the sessions, the
// SSE streams and the JSON responses are this package's. framework's
// Server.HTTPHandler serves it.
//
// # The server above
//
// What the transport needs of the server beyond the SDK's mcp.Server
// (reading a POST's body within the server's bounds, a check of a call
// before it runs, a tool's header checks) it asks through one interface
// of its own, [Host], given in [Options]; its documentation holds the
// order and the concurrency of the calls. framework's HTTP handler
// implements it.
//
// # One read, one decode
//
// A POST body is read once, within the server's bounds ([Host] ReadBody;
// framework's: MaxRequestBodyBytes, MaxBodyBytesInFlight, BodyReadTimeout),
// and decoded once by [DecodeBody] into the jsonrpc.Message values the
// SDK reads: params and results are slices of the body, not copies, and
// no stream decoder (the SDK's allocates 32 KiB per message) is made.
// [DecodeMessage] accepts and refuses what jsonrpc.DecodeMessage does
// and builds the same message (a fuzz target checks it), but for an ID
// the SDK's would change: it makes any number an integer (1.5 becomes 1,
// 2^64 a negative number) by way of a float64, and DecodeMessage refuses
// an ID that is not a string or an integer literal that comes back from
// a float64 unchanged (all integers up to 2^53 in magnitude), which the
// transport answers 400 with -32600 and no ID. The SDK's
// session still unmarshals each request's params itself.
//
// # What an outside transport cannot reach in go-sdk v1.8, and how each is handled
//
//   - Which call a message belongs to (the SDK's unexported idContextKey):
//     each request gets a RequestExtra of its own; framework's receiving
//     middleware puts it in the handler's context ([WithRequest]), and
//     Write finds the call by it. Progress, log messages and requests to
//     the client sent while a call runs go out on that call's response.
//   - Cancellation (the unexported cancellationPropagator): a stateless
//     POST whose client goes away before its answer makes the session's
//     Read fail, which cancels its calls; 2026-07-28 is only served
//     stateless, so that covers it. A stateful call is not cancelled by a
//     disconnection (2025-11-25 says a client that gives up sends
//     notifications/cancelled).
//   - Custom receiving methods (AddReceivingCustomMethod): the SDK keeps
//     the list unexported, so the transport does not check methods; the
//     session serves a custom one, or answers -32601. A -32601 to a method
//     MCP does not define that is a POST's whole answer goes out as a JSON
//     body with HTTP 400 (404 on 2026-07-28), as the SDK's transport
//     refuses a method its server does not know; a -32601 to a method MCP
//     defines (resources/subscribe on a server without subscriptions) is
//     a 200 before 2026-07-28, as on the SDK's. A call of an MCP method
//     that requires params and has none is refused 400 (-32600) before the
//     session runs, as the SDK's transport refuses it.
//   - The per-tool header checks (Mcp-Param-*, from x-mcp-header in a
//     tool's input schema): re-implemented; framework compiles each
//     tool's checks from its schema once, on its first 2026-07-28 call
//     (Host.ParamHeaders, CompileParamHeaders).
//   - Re-implemented: JSON-RPC error to HTTP status on 2026-07-28 (-32601
//     404; -32602, -32021, -32022 400); binding a session to the user who
//     opened it (403 for another); the 2026-07-28 _meta and
//     Mcp-Protocol-Version, Mcp-Method and Mcp-Name checks;
//     subscriptions/listen (a long SSE stream that carries notifications
//     sent outside any call); the DNS-rebinding Host check; session IDs (crypto/rand.Text, or the
//     server's GetSessionID); the GET stream; DELETE; the stateless mode;
//     CloseSSEStream (with a close event carrying retry on 2025-11-25).
//   - Stricter than the SDK: Mcp-Protocol-Version is checked on every
//     request, GET and DELETE included, against Versions: one the server
//     does not speak is refused 400 with a -32022 JSON-RPC error whose
//     data names the versions it does (the SDK's handler compares
//     versions as strings, and lets any from 2026-07-28 on through). A
//     request without the header is taken as 2025-03-26, as on the SDK's.
//   - Stricter than the SDK: Origin is checked on every request (the
//     SDK's handler checks none unless given a CrossOriginProtection, and
//     that one only on POST and DELETE). [Options] CrossOriginProtection
//     (by default http.NewCrossOriginProtection: no Origin or a
//     same-origin one passes) checks GET, HEAD and OPTIONS as it checks
//     a POST, and a loopback page (the MCP Inspector's browser mode)
//     reaches a server listening on loopback; any other is refused 403.
//   - Resuming a stream with Last-Event-ID (the SDK keeps its stream
//     bookkeeping unexported): re-implemented on the SDK's exported
//     mcp.EventStore; see Resumability.
//
// # Resumability
//
// With Options.EventStore, each stateful session's SSE streams are kept
// in the store, on the versions that resume (up to 2025-11-25; 2026-07-28
// has no sessions and dropped resuming), with the SDK's decisions:
//
//   - Event IDs are <stream ID>_<index>, the SDK's and the TypeScript
//     SDK's format: a POST's stream has an ID of its own
//     (crypto/rand.Text, opened in the store when the POST comes), the
//     GET stream has "", and index counts the stream's events in the
//     store from 0.
//   - On 2025-11-25 a POST's stream opens with a priming event (an ID, no
//     data; index 0), so a client cut off before the first message can
//     resume; below it, the first message's event has the first ID, and
//     a tools/call answered first is still one JSON body. A JSON response
//     (JSONResponse) is not stored: nothing in it can be resumed.
//   - A message is stored before it is written; while no request carries
//     its stream (the client went, or CloseSSEStream ended the POST), it
//     is stored alone, and counts as delivered. A POST's calls outlive its
//     response then: their answers are stored until the session ends.
//   - A GET with Last-Event-ID replays the stream's events after that
//     index, then carries the stream on while it has calls left (the GET
//     stream for ever); a GET without one replays the GET stream from its
//     start, as the SDK's does. A stream another request carries is
//     refused with 409; a malformed ID, one of a stream the session's
//     store does not know (another session's: the store is keyed by
//     session), or events the store dropped, with 400 ("failed to replay
//     events"; 404 would tell the client its session is gone); any
//     Last-Event-ID without a store with 400 ("stream replay
//     unsupported"). A POST with Last-Event-ID is refused with 400.
//   - A replay holds one event at a time, as the store's iterator yields
//     it (the SDK's collects them all first), under the stream's lock, so
//     no new event is stored or sent before the replay ends. What the
//     store keeps is its own bound (mcp.MemoryEventStore: 10 MiB by
//     default, oldest first); the session's end tells it
//     (SessionClosed).
//   - Without a store nothing of this runs, and nothing is allocated for
//     it.
//
// # Responses
//
// A POST of one tools/call is answered with one JSON body when its answer
// is the first message for it, and with an SSE stream from the first
// message on otherwise (progress, logs, a request to the client): a
// client must accept either, and JSON costs less. Other POSTs with calls
// get an SSE stream, or one JSON body with JSONResponse; POSTs without
// calls get 202. Each write to a client has a deadline (WriteTimeout;
// framework sets 30 s), so a client that stops reading its stream fails
// that stream alone, after it; the stream's end clears the deadline.
// Messages are written one at a time; MaxUnsentBytes bounds the bytes of
// those waiting behind a write the client does not take, and cuts off
// the stream whose next message would pass it (see stream.deliver).
//
// # Bounds
//
// A stateful session lives until DELETE, SessionTimeout idle, or eviction
// by MaxSessions (oldest first). Each session holds one GET stream at
// most (another gets 409) and one entry per call in flight. A batch
// (2025-03-26 and older only) is refused whole when two of its calls share
// an ID.
//
// # Client
//
// [ClientTransport] is the client side, for the gateway's hop to an HTTP
// upstream: an mcp.Transport an mcp.Client connects with, its messages
// read once and decoded once by [DecodeMessage] (a JSON reply, or each
// server-sent event's data). It re-implements what the SDK's
// StreamableClientTransport does and an outside transport must:
//
//   - POST each message, accepting JSON and SSE, with Mcp-Session-Id once
//     the server gave one and Mcp-Protocol-Version: a request's _meta
//     names it, else the response to initialize (or to a server/discover
//     that listed the version asked for) did; the SDK tells its own
//     transport (sessionUpdated), which is unexported.
//   - On 2026-07-28, Mcp-Method, Mcp-Name and the Mcp-Param-* headers of
//     a tool whose input schema has x-mcp-header: the SDK's client finds
//     the tool under a context key of its own, so this transport keeps
//     the annotations of the tools/list results it reads (4,096 tools at
//     most).
//   - 202 for notifications and responses; the GET stream once
//     notifications/initialized is accepted, below 2026-07-28 (405,
//     another 4xx or no event stream: none). A server that never answers
//     the GET fails that Write, where the SDK's would wait for ever.
//   - A stream that breaks off is opened again with Last-Event-ID,
//     honouring retry, as often as MaxRetries allows without a new event
//     ID (a call's only when its events had IDs; else the call fails
//     "terminated without response").
//   - The SDK's errors: a JSON-RPC error body, 429 and 5xx fail the
//     message; 404 on a session fails the connection with
//     mcp.ErrSessionMissing; any other error status fails it.
//   - DELETE on Close (none without a session, or after the server lost
//     it); a stateless server (no session ID).
//
// The event parser follows the HTML standard's interpretation (CRLF, LF
// or CR line ends, comments, id, retry, event) and bounds a line and an
// event, and a JSON reply's body, by MaxEventBytes (DefaultMaxEventBytes,
// 16 MiB, the SDK's default): past it the connection fails. A call
// cancelled by its caller cancels its POST, and its stream with it.
//
// [ClientHooks] tell the user what the SDK cannot: each message with the
// context of the request on whose response it came (the gateway finds
// the call a request to the client is about by it), each HTTP status
// (401 and 403 refusals), and each error reaching or reading the server.
//
// Left out: OAuth handlers (the caller's http.Client adds credentials, as
// the gateway's does), and the SDK's strict mode and logger.
package streamable
