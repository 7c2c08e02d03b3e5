// The traffic each recording holds, driven by the TypeScript SDK's client
// (bundled for the page by esbuild, imported as is by Node). The version
// probe and the 2026-07-28 session are sent by hand through fetch: no SDK
// client here speaks 2026-07-28.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'

async function connect (url) {
  const client = new Client({ name: 'recorder-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } })
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'stub-model', content: { type: 'text', text: 'hi' } }))
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }))
  const transport = new StreamableHTTPClientTransport(new URL(url))
  await client.connect(transport)
  return { client, transport }
}

async function end ({ client, transport }) {
  await transport.terminateSession()
  await client.close()
}

export const scenarios = {
  // initialize, lists, a call, a prompt, a ping, the session deleted
  async clean (url) {
    const c = await connect(url)
    await c.client.listTools()
    await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } })
    await c.client.listPrompts()
    await c.client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } })
    await c.client.ping()
    await end(c)
  },
  // the tool errors again, from a server whose JSON answers' type has a
  // parameter (server.mjs typed): playwright writes them in base64
  async 'typed-json' (url) { await scenarios['tool-errors'](url) },
  // isError results, an unknown tool, wrong arguments
  async 'tool-errors' (url) {
    const c = await connect(url)
    await c.client.listTools()
    await c.client.callTool({ name: 'fail', arguments: { why: 'asked to' } })
    await c.client.callTool({ name: 'nope', arguments: {} })
    await c.client.callTool({ name: 'echo', arguments: { text: 42 } })
    await end(c)
  },
  // three JSON-RPC errors: a method the server does not offer, an
  // unknown prompt, an unknown log level
  async 'rpc-errors' (url) {
    const c = await connect(url)
    await c.client.listTools()
    await c.client.listResources().catch(() => {})
    await c.client.getPrompt({ name: 'nope', arguments: {} }).catch(() => {})
    await c.client.setLoggingLevel('loud').catch(() => {})
    await c.client.callTool({ name: 'echo', arguments: { text: 'still fine' } })
    await end(c)
  },
  // an SSE answer carrying progress notifications before the result
  async progress (url) {
    const c = await connect(url)
    await c.client.listTools()
    await c.client.callTool({ name: 'countdown', arguments: { from: 3 } }, undefined, { onprogress: () => {} })
    await end(c)
  },
  // server requests (sampling, elicitation) on the call's stream, answered
  // by the client with new POSTs
  async 'server-requests' (url) {
    const c = await connect(url)
    await c.client.callTool({ name: 'ask', arguments: {} })
    await end(c)
  },
  // a 2026-07-28 server/discover probe the 2025 server refuses, then the
  // SDK's initialize
  async 'version-probe' (url) {
    await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } })
    }).then(r => r.text())
    const c = await connect(url)
    await c.client.listTools()
    await c.client.callTool({ name: 'echo', arguments: { text: 'after the probe' } })
    await end(c)
  },
  // 2026-07-28 by hand: _meta on every request, routing headers on every
  // POST; one ping sent without _meta (refused), one isError result
  async 'routing-2026' (url) {
    const V = '2026-07-28'
    const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'recorder-page', version: '1.0.0' } }
    let id = 0
    const post = async (method, params, name, withMeta = true) => {
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': V, 'Mcp-Method': method }
      if (name) headers['Mcp-Name'] = name
      const p = withMeta ? { ...params, _meta: meta } : params
      const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: p }) })
      return r.text()
    }
    await post('server/discover', {})
    await post('tools/list', {})
    await post('tools/call', { name: 'echo', arguments: { text: 'routed' } }, 'echo')
    await post('tools/call', { name: 'fail', arguments: {} }, 'fail')
    await post('ping', {}, undefined, false)
  }
}
