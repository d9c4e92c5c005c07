// Civic's passthrough proxy in front of the benchmark's upstream, with a
// hook that does nothing on tools/call: the counterpart of the hookflow
// gateway with a no-op hook. The runner copies this file next to the
// installed @civic/passthrough-mcp-server@0.12.1 and runs
//
//	node civic.mjs <port> <upstream-url>
import { AbstractHook, createHttpPassthroughProxy } from "@civic/passthrough-mcp-server";

class Noop extends AbstractHook {
  get name() {
    return "noop";
  }
  async processCallToolRequest(request) {
    return { resultType: "continue", request };
  }
}

const [port, url] = process.argv.slice(2);
await createHttpPassthroughProxy({
  port: Number(port),
  target: { transportType: "httpStream", url },
  hooks: [new Noop()],
  autoStart: true,
});
console.log(`listening http://127.0.0.1:${port}/mcp`);
