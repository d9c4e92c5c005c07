// Package plugintest is a test kit for hookflow plugins, in the spirit of
// testing/slogtest: it runs a plugin's hooks in a real in-memory hookflow
// server, talks to it through real MCP client sessions, and checks what
// every plugin owes the framework.
//
// # The harness
//
// [New] builds a [Harness]: a framework.Server with the plugins of
// [Options] attached (to the server or to apps), the test tools of
// [AddTools] ([ToolEcho], [ToolFail], [ToolPanic], [ToolNext]), and client
// sessions connected over mcp.NewInMemoryTransports. A test calls tools and
// asserts what the client saw:
//
//	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{myplugin.New(cfg)}})
//	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "hi"}).WantText(plugintest.EchoText("hi"))
//	h.Call(plugintest.ToolFail, plugintest.Text{Text: "x"}).WantToolError("fail: x")
//	h.Call("nope", nil).WantProtocolError(jsonrpc.CodeInvalidParams)
//
// A session can present a verified bearer token ([SessionOptions.Token]),
// as the SDK's auth middleware would over HTTP, so that hooks see a
// principal. The harness also records what happened on the server side:
// how many times finally ran per request ([Harness.Finally]) and which hooks
// ran ([Harness.HookCalls]); and for each call, on its [Result], whether
// the tool ran, which hook decided the outcome and the decisions hooks
// recorded:
//
//	r := h.Call(plugintest.ToolEcho, plugintest.Text{Text: "mail alice@example.com"})
//	if r.Ran || r.DecidedBy != "plugintest/plugin:pii/tools:call-tool/beforeExecute/scan" {
//		t.Errorf("%v: ran %v, decided by %q", r, r.Ran, r.DecidedBy)
//	}
//
// [Harness.Plan] and [PlanOf] read the plan a server runs for a flow and
// an entity, the one framework.Server.Explain prints, as [PlanHook]
// values (stage, priority, ID in run order), for tests of a plugin's
// placement.
//
// # The shared checks
//
// [Run] runs, as subtests, the checks every plugin should pass: its hooks
// are owned by its own plugin scope, attaching it keeps the run contract
// (right outputs, isError for failures, finally exactly once), it survives
// concurrent calls over several sessions, and attached to an app its hooks
// run for that app's entities only; the calls it must block
// ([RunOptions.Blocked]) fail without the tool running, decided by its own
// hook; and a panic's message never reaches a client through it. Call it
// from a test of the plugin's package and run the tests with -race:
//
//	func TestPluginChecks(t *testing.T) {
//		plugintest.Run(t, func(t testing.TB) framework.Plugin { return myplugin.New(myplugin.Config{}) }, &plugintest.RunOptions{
//			Blocked: []plugintest.Call{{Tool: plugintest.ToolEcho, Args: plugintest.Text{Text: "mail alice@example.com"}}},
//		})
//	}
//
// # Servers, HTTP requests and configurations
//
// For a test that needs a server of its own (an HTTP handler, entities a
// plugin reads), [NewServer] builds one from [ServerOptions] and
// [NewHTTPServer] serves a handler until the test ends. [Post] and
// [PostJSON] send a POST as a streamable HTTP client does, with the
// headers of [HTTPOptions], and read the answer whole; [Record] serves one
// in process, without a network. [BearerClient] is an HTTP client (for an
// mcp.StreamableClientTransport, say) that sends a bearer token.
// [FieldErrs] and [FieldLines] read a Config.Validate result as its fields
// and messages, failing the test on an error that is not a *flows.Error of
// code invalid:
//
//	got := plugintest.FieldErrs(t, myplugin.Config{TTL: -1}.Validate())
//	// got == []plugintest.FieldErr{{"ttl", "must not be negative, got -1ns"}}
//
// [Buffer] is a log sink safe for the goroutines that write to it.
//
// A plugin that starts processes checks what of its environment reaches
// them with [SetChildEnv] (a secret, a client token, a variable to
// inherit) and [WantEnv] (what a child's environment must hold and lack).
//
// # Status
//
// EXPERIMENTAL: the checks may grow as the run contract does.
package plugintest
