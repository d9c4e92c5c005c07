// The errors leg's TypeScript client (examples/everything's
// TestClientsWorldErrors): the MCP TypeScript SDK's client makes requests
// a server refuses, and prints one JSON line per request: {"check",
// "ok", "detail"}, detail the outcome as the client sees it ("McpError
// -32601" for a JSON-RPC error, "HTTP 400" for a refused POST, "result"
// or "error result" for a tool's answer). The Go test runs it against
// hookflow's transport and the SDK's and wants the same outcomes.
//
// Usage: node errors.mjs <server URL>; the environment gives
// HOOKFLOW_WORLD (where the SDK is installed).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [url] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(process.env.HOOKFLOW_WORLD, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport, StreamableHTTPError } = await sdk("client/streamableHttp.js");
const types = await sdk("types.js");

function report(check, ok, detail) {
	console.log(JSON.stringify({ check, ok, detail: String(detail ?? "") }));
}

// outcome runs fn and names what the client saw.
async function outcome(name, fn) {
	try {
		const res = await fn();
		report(name, true, res?.isError ? "error result" : "result");
	} catch (e) {
		if (e instanceof types.McpError) {
			report(name, true, `McpError ${e.code}`);
		} else if (e instanceof StreamableHTTPError) {
			report(name, true, `HTTP ${e.code}`);
		} else {
			report(name, false, e?.stack ?? e);
		}
	}
}

const client = new Client({ name: "clients-errors", version: "1" }, { capabilities: {} });
const transport = new StreamableHTTPClientTransport(new URL(url));
try {
	await client.connect(transport);
} catch (e) {
	report("initialize", false, e?.stack ?? e);
	process.exit(0);
}
await outcome("unknown method", () => client.request({ method: "no/such", params: {} }, types.EmptyResultSchema));
await outcome("method without capability", () => client.request({ method: "resources/subscribe", params: { uri: "file:///x" } }, types.EmptyResultSchema));
await outcome("invalid params", () => client.callTool({ name: "echo", arguments: { text: 7 } }));
await outcome("unknown tool", () => client.callTool({ name: "nope", arguments: {} }));
await transport.terminateSession().catch(() => {});
await client.close();
