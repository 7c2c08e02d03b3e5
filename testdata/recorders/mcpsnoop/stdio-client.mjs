// Drives stdio-server.mjs through the mcpsnoop shim with the SDK's client:
//   node stdio-client.mjs MCPSNOOP TRACE.jsonl
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [mcpsnoop, trace] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: mcpsnoop,
  args: ["--label", "notes", "--trace-file", trace, "--", process.execPath, new URL("stdio-server.mjs", import.meta.url).pathname],
});
const client = new Client({ name: "recorder", version: "1.0.0" });
await client.connect(transport);
await client.listTools();
await client.callTool({ name: "echo", arguments: { text: "hello" } });
await client.callTool({ name: "read_note", arguments: { path: "../../etc/passwd" } });
await client.callTool({ name: "countdown", arguments: { n: 3 } }, undefined, { onprogress: () => {} });
await client.ping();
await client.close();
