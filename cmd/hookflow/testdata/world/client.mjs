// The world leg's client (cmd/hookflow's TestGatewayWorld): the MCP
// TypeScript SDK's client drives hookflow gateway, in front of the
// reference servers everything (ev_), filesystem (fs_) and memory (mem_),
// and prints one JSON line per check: {"check", "ok", "detail"}. When it
// needs the test to act (kill an upstream process), it prints
// {"wait": what} and reads one line from its standard input.
//
// Usage: node client.mjs <gateway URL> <data directory>; the environment
// gives HOOKFLOW_WORLD (where the SDK is installed) and WORLD_TOKEN (the
// gateway's bearer token).
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [url, dataDir] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(process.env.HOOKFLOW_WORLD, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const types = await sdk("types.js");

const rootURI = pathToFileURL(dataDir).href;
const stdin = createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

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

async function waitFor(what) {
	console.log(JSON.stringify({ wait: what }));
	await lines.next();
}

function text(result) {
	return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

function must(cond, msg) {
	if (!cond) throw new Error(msg);
}

// connect opens a session; a capable client answers sampling, elicitation
// and roots requests.
async function connect(capable, updated) {
	const client = new Client(
		{ name: capable ? "world-capable" : "world-plain", version: "1" },
		{ capabilities: capable ? { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } : {} },
	);
	if (capable) {
		client.setRequestHandler(types.CreateMessageRequestSchema, async () => ({
			role: "assistant", model: "world-model", stopReason: "endTurn",
			content: { type: "text", text: "sampled-by-world" },
		}));
		client.setRequestHandler(types.ElicitRequestSchema, async () => ({ action: "accept", content: { name: "World Tester", check: true } }));
		client.setRequestHandler(types.ListRootsRequestSchema, async () => ({ roots: [{ uri: rootURI, name: "world-root" }] }));
	}
	if (updated) {
		client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => updated(n.params.uri));
	}
	const transport = new StreamableHTTPClientTransport(new URL(url), {
		requestInit: { headers: { Authorization: `Bearer ${process.env.WORLD_TOKEN}` } },
	});
	await client.connect(transport);
	return client;
}

const updates = [];
const capable = await connect(true, (uri) => updates.push(uri));
const plain = await connect(false);

async function toolNames(client) {
	const names = [];
	let cursor;
	do {
		const page = await client.listTools(cursor ? { cursor } : {});
		names.push(...page.tools.map((t) => t.name));
		cursor = page.nextCursor;
	} while (cursor);
	return names;
}

await check("lists from all three", async () => {
	const names = await toolNames(capable);
	for (const want of ["ev_echo", "fs_list_directory", "mem_read_graph"]) {
		must(names.includes(want), `${want} is not listed: ${names.join(", ")}`);
	}
	const res = await capable.listResources();
	must(res.resources.some((r) => r.uri.startsWith("ev+")), `no ev+ resource: ${res.resources.map((r) => r.uri).join(", ")}`);
	return `${names.length} tools`;
});

await check("calls", async () => {
	const echo = text(await capable.callTool({ name: "ev_echo", arguments: { message: "hello world" } }));
	must(echo.includes("hello world"), `echo said ${echo}`);
	const dir = text(await capable.callTool({ name: "fs_list_directory", arguments: { path: dataDir } }));
	must(dir.includes("hello.txt"), `list_directory said ${dir}`);
	await capable.callTool({ name: "mem_create_entities", arguments: { entities: [{ name: "gateway", entityType: "program", observations: ["passes calls"] }] } });
	const graph = text(await capable.callTool({ name: "mem_read_graph", arguments: {} }));
	must(graph.includes("passes calls"), `read_graph said ${graph}`);
	return "echo, list_directory, create_entities and read_graph";
});

await check("progress", async () => {
	const seen = [];
	const res = await capable.callTool({ name: "ev_trigger-long-running-operation", arguments: { duration: 1, steps: 3 } }, undefined, {
		onprogress: (p) => seen.push(p.progress),
	});
	must(!res.isError, text(res));
	must(seen.length >= 1, "no progress notification");
	return `progress ${seen.join(", ")}`;
});

await check("capability-dependent tools", async () => {
	const withCaps = await toolNames(capable);
	const without = await toolNames(plain);
	must(withCaps.includes("ev_trigger-sampling-request"), "the capable client does not see ev_trigger-sampling-request");
	must(!without.includes("ev_trigger-sampling-request"), "the client without sampling sees ev_trigger-sampling-request");
	return "seen by the capable client only";
});

await check("sampling", async () => {
	const res = await capable.callTool({ name: "ev_trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } });
	must(!res.isError && text(res).includes("sampled-by-world"), text(res));
	return "answered by the client";
});

await check("elicitation", async () => {
	const res = await capable.callTool({ name: "ev_trigger-elicitation-request", arguments: {} });
	must(!res.isError && text(res).includes("World Tester"), text(res));
	return "answered by the client";
});

await check("roots", async () => {
	const res = await capable.callTool({ name: "ev_get-roots-list", arguments: {} });
	must(!res.isError && text(res).includes(rootURI), text(res));
	return "listed by the client";
});

await check("subscription update", async () => {
	const res = await capable.listResources();
	const uri = res.resources.find((r) => r.uri.startsWith("ev+"))?.uri;
	must(uri, "no resource to subscribe to");
	await capable.subscribeResource({ uri });
	await capable.callTool({ name: "ev_toggle-subscriber-updates", arguments: {} });
	const deadline = Date.now() + 12_000;
	while (!updates.includes(uri) && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 100));
	}
	await capable.callTool({ name: "ev_toggle-subscriber-updates", arguments: {} });
	must(updates.includes(uri), `no notifications/resources/updated for ${uri} within 12 s`);
	return `updated ${uri}`;
});

await check("no gateway secret upstream", async () => {
	const env = text(await capable.callTool({ name: "ev_get-env", arguments: {} }));
	must(env.includes("PATH"), `get-env said ${env.slice(0, 200)}`);
	must(!env.includes(process.env.WORLD_TOKEN) && !env.includes("WORLD_TOKEN"), "the upstream's environment holds the gateway's token");
	return "the token is not in the upstream's environment";
});

await check("an upstream killed is replaced before the next call", async () => {
	await capable.callTool({ name: "mem_read_graph", arguments: {} });
	await waitFor("kill memory");
	const res = await capable.callTool({ name: "mem_read_graph", arguments: {} });
	must(!res.isError && text(res).includes("passes calls"), text(res));
	return "the next call succeeded";
});

await capable.close();
await plain.close();
stdin.close();
