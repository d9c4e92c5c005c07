// The clients leg's TypeScript client (examples/everything's
// TestClientsWorld): the MCP TypeScript SDK's client drives
// examples/everything over hookflow's streamable HTTP transport and prints
// one JSON line per check: {"check", "ok", "detail"}.
//
// Usage: node client.mjs <server URL> stateful|stateless; the environment
// gives HOOKFLOW_WORLD (where the SDK is installed).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [url, mode] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(process.env.HOOKFLOW_WORLD, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const types = await sdk("types.js");

function report(check, ok, detail) {
	console.log(JSON.stringify({ check, ok, detail: String(detail ?? "") }));
}

async function check(name, fn) {
	try {
		report(name, true, await fn());
	} catch (e) {
		report(name, false, e?.stack ?? e);
	}
}

function text(result) {
	return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

function must(cond, msg) {
	if (!cond) throw new Error(msg);
}

// answers records, per JSON-RPC method of a POST that carries one
// request, the Content-Type of the last such POST's answer. hookflow's
// transport answers a tools/call with one JSON body when the result is
// the first message for it, and with an SSE stream otherwise: an SSE
// answer shows that what the server sent during the call (progress, a
// request to the client) went on the call's own stream, not the GET one.
const answers = new Map();
async function recordingFetch(input, init) {
	const res = await fetch(input, init);
	if (init?.method === "POST" && typeof init.body === "string") {
		const msg = JSON.parse(init.body);
		if (!Array.isArray(msg) && msg.id !== undefined && msg.method !== undefined) {
			answers.set(msg.method, (res.headers.get("content-type") ?? "").split(";")[0]);
		}
	}
	return res;
}

// The client answers sampling and elicitation requests.
const client = new Client(
	{ name: "clients-" + mode, version: "1" },
	{ capabilities: { sampling: {}, elicitation: { form: {} } } },
);
let sampled = 0;
client.setRequestHandler(types.CreateMessageRequestSchema, async (req) => {
	sampled++;
	const prompt = req.params.messages?.[0]?.content?.text ?? "";
	return { role: "assistant", model: "clients-model", stopReason: "endTurn", content: { type: "text", text: "sampled:" + prompt } };
});
client.setRequestHandler(types.ElicitRequestSchema, async () => ({ action: "accept", content: { username: "clients-user" } }));
const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });

await check("initialize", async () => {
	await client.connect(transport);
	const version = transport.protocolVersion;
	must(version === types.LATEST_PROTOCOL_VERSION, `negotiated ${version}, want ${types.LATEST_PROTOCOL_VERSION}`);
	const server = client.getServerVersion();
	must(server?.name === "mcp-conformance-test-server", `server ${JSON.stringify(server)}`);
	if (mode === "stateful") {
		must(transport.sessionId, "no Mcp-Session-Id on a stateful server");
	} else {
		must(!transport.sessionId, `a stateless server gave session ${transport.sessionId}`);
	}
	return `${version}, session ${transport.sessionId ?? "none"}`;
});

await check("tools/list", async () => {
	const names = [];
	let cursor;
	do {
		const page = await client.listTools(cursor ? { cursor } : {});
		names.push(...page.tools.map((t) => t.name));
		cursor = page.nextCursor;
	} while (cursor);
	for (const want of ["test_simple_text", "test_tool_with_progress", "test_sampling", "test_elicitation"]) {
		must(names.includes(want), `${want} missing from ${names.join(", ")}`);
	}
	return `${names.length} tools`;
});

await check("progress during a call", async () => {
	// The SDK drops progress that comes after the call's result.
	const seen = [];
	const result = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
		onprogress: (p) => seen.push(p.progress),
	});
	must(seen.join(",") === "0,50,100", `progress ${seen.join(",")}, want 0,50,100`);
	const answer = answers.get("tools/call");
	must(answer === "text/event-stream", `the call was answered with ${answer}, not an SSE stream`);
	return `progress ${seen.join(",")} on the call's SSE stream, then "${text(result)}"`;
});

// On a stateful server a call asks the client's LLM (sampling/createMessage)
// and its user (elicitation/create) on the call's SSE stream and gets the
// answers; a stateless server has no session to answer on and refuses the
// request, which the tool reports as an error result.
await check("sampling during a call", async () => {
	const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "capital of France?" } });
	if (mode === "stateless") {
		must(result.isError && sampled === 0, `stateless: isError ${result.isError}, sampled ${sampled}: ${text(result)}`);
		return `refused, as a stateless server must: ${text(result)}`;
	}
	must(!result.isError && text(result) === "LLM response: sampled:capital of France?", `got ${JSON.stringify(result)}`);
	must(sampled === 1, `the client answered ${sampled} sampling requests`);
	must(answers.get("tools/call") === "text/event-stream", `answered with ${answers.get("tools/call")}`);
	return text(result);
});

await check("elicitation during a call", async () => {
	const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Your name?" } });
	if (mode === "stateless") {
		must(result.isError, `stateless: isError ${result.isError}: ${text(result)}`);
		return `refused, as a stateless server must: ${text(result)}`;
	}
	must(!result.isError && text(result).includes("action=accept") && text(result).includes("clients-user"), `got ${JSON.stringify(result)}`);
	return text(result);
});

await check("a plain call", async () => {
	const result = await client.callTool({ name: "test_simple_text", arguments: {} });
	must(!result.isError && text(result).length > 0, `got ${JSON.stringify(result)}`);
	return `"${text(result)}" answered with ${answers.get("tools/call")}`;
});

await check("close", async () => {
	if (mode === "stateful") {
		await transport.terminateSession();
		must(!transport.sessionId, "the session is still set after DELETE");
	}
	await client.close();
	return mode === "stateful" ? "DELETE ended the session" : "closed";
});
