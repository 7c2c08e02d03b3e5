// A stdio MCP server on the TypeScript SDK: one tool that answers, one
// that fails with an isError result, one that reports progress.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "notes", version: "1.0.0" });
server.tool("echo", "Echo the text back", { text: z.string() }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
server.tool("read_note", "Read a note by path", { path: z.string() }, async ({ path }) => ({
  content: [{ type: "text", text: `Access denied: ${path} is outside /srv/notes` }],
  isError: true,
}));
server.tool("countdown", "Count down, reporting progress", { n: z.number() }, async ({ n }, extra) => {
  for (let i = 1; i <= n; i++) {
    if (extra._meta?.progressToken !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: extra._meta.progressToken, progress: i, total: n },
      });
    }
  }
  return { content: [{ type: "text", text: "done" }] };
});
await server.connect(new StdioServerTransport());
