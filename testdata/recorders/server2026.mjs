// A small 2026-07-28 Streamable HTTP server written here (no SDK in the
// npm registry speaks 2026-07-28 yet), on 127.0.0.1 only. No handshake and
// no session id: server/discover, tools/list and tools/call, each checked
// for the per-request _meta and the MCP-Protocol-Version / Mcp-Method /
// Mcp-Name headers; a request without them is -32602 with HTTP 400. Tool
// calls answer as an SSE stream, the rest as JSON. Version 2025 requests
// (initialize) are refused with -32022 and the versions it supports.
import http from 'node:http'

const V = '2026-07-28'
const serverInfo = { name: 'recorder-2026', version: '0.1.0' }
const tools = [{ name: 'echo', description: 'Echo the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'fail', description: 'Always fails', inputSchema: { type: 'object', properties: {} } }]

function cors (res) {
  res.setHeader('Access-Control-Allow-Origin', '*')
  res.setHeader('Access-Control-Allow-Headers', '*')
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS')
}

function handle (msg, headers) {
  const meta = msg.params?._meta ?? {}
  const err = (code, message, data) => ({ status: 400, body: { jsonrpc: '2.0', id: msg.id ?? null, error: { code, message, ...(data ? { data } : {}) } } })
  if (msg.method === 'initialize') return err(-32022, 'Unsupported protocol version', { supported: [V] })
  if (meta['io.modelcontextprotocol/protocolVersion'] !== V || typeof meta['io.modelcontextprotocol/clientCapabilities'] !== 'object') return err(-32602, 'Missing or invalid _meta protocol fields')
  if (headers['mcp-protocol-version'] !== V || headers['mcp-method'] !== msg.method) return err(-32001, 'Routing headers missing or differ from the body')
  const ok = (result) => ({ status: 200, body: { jsonrpc: '2.0', id: msg.id, result: { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } } } })
  switch (msg.method) {
    case 'server/discover':
      return ok({ supportedVersions: [V], capabilities: { tools: {} }, instructions: 'Echo and fail.', ttlMs: 60000, cacheScope: 'public' })
    case 'tools/list':
      return ok({ tools, ttlMs: 60000, cacheScope: 'public' })
    case 'tools/call': {
      if (headers['mcp-name'] !== msg.params?.name) return err(-32001, 'Mcp-Name differs from params.name')
      const sse = true
      if (msg.params.name === 'echo') return { sse, ...ok({ content: [{ type: 'text', text: String(msg.params.arguments?.text ?? '') }] }) }
      if (msg.params.name === 'fail') return { sse, ...ok({ content: [{ type: 'text', text: 'it failed' }], isError: true }) }
      return { status: 200, body: { jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'Unknown tool: ' + msg.params.name } } }
    }
  }
  return { status: 200, body: { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } } }
}

const port = Number(process.argv[2] || 0)
const s = http.createServer(async (req, res) => {
  cors(res)
  if (req.method === 'OPTIONS') { res.writeHead(204).end(); return }
  if (req.method !== 'POST') { res.writeHead(405).end(); return }
  const chunks = []
  for await (const c of req) chunks.push(c)
  let msg
  try { msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch {
    res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }))
    return
  }
  if (msg.id === undefined) { res.writeHead(202).end(); return }
  const a = handle(msg, req.headers)
  if (a.sse) {
    res.writeHead(a.status, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    res.write(': stream\n\n')
    res.end(`event: message\ndata: ${JSON.stringify(a.body)}\n\n`)
    return
  }
  res.writeHead(a.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(a.body))
})
s.listen(port, '127.0.0.1', () => console.log(`server2026 http://127.0.0.1:${s.address().port}/mcp`))
