// Drives stdio-server.mjs with the SDK's client through two tees, as a user
// records a stdio server without a proxy:
//   node tee-client.mjs CAPTURE.ndjson
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [capture] = process.argv.slice(2);
const server = new URL("stdio-server.mjs", import.meta.url).pathname;
const transport = new StdioClientTransport({
  command: "sh",
  args: ["-c", `tee -a "$1" | "$2" "$3" | tee -a "$1"`, "sh", capture, process.execPath, server],
});
const client = new Client({ name: "recorder", version: "1.0.0" });
await client.connect(transport);
await client.listTools();
await client.callTool({ name: "echo", arguments: { text: "hello" } });
await client.callTool({ name: "read_note", arguments: { path: "../../etc/passwd" } });
await client.callTool({ name: "countdown", arguments: { n: 3 } }, undefined, { onprogress: () => {} });
await client.ping();
await client.close();
