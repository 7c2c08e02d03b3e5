// A Streamable HTTP MCP server built on the TypeScript SDK, listening on
// 127.0.0.1 only. One transport per session (Mcp-Session-Id), SSE answers,
// CORS for a page on another origin. Tools: echo, fail (an isError result),
// countdown (progress notifications on the call's SSE stream), ask (the
// server asks the client: sampling/createMessage, then elicitation/create).
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest, CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

const port = Number(process.argv[2] || 0)
// with "typed": answers as one JSON body (enableJsonResponse) whose
// Content-Type carries a parameter besides charset (application/json;
// profile=jsonrpc, still application/json to a client): playwright keeps
// as text only types it knows bare or with a charset, and writes such a
// body in base64
const typed = process.argv[3] === 'typed'

function newServer () {
  const s = new McpServer({ name: 'recorder-notes', version: '1.0.0' }, { capabilities: { logging: {} } })
  s.tool('echo', 'Echo the text back', { text: z.string() }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
  s.tool('fail', 'Always fails', { why: z.string() }, async ({ why }) => ({ content: [{ type: 'text', text: 'failed: ' + why }], isError: true }))
  s.tool('countdown', 'Counts down with progress', { from: z.number() }, async ({ from }, extra) => {
    const token = extra._meta?.progressToken
    for (let i = 0; i < from; i++) {
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i + 1, total: from } })
      }
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    return { content: [{ type: 'text', text: 'liftoff' }] }
  })
  s.tool('ask', 'Asks the client to sample, then to elicit', {}, async (_args, extra) => {
    // on the call's own SSE stream (related to the call)
    const sampled = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 } }, CreateMessageResultSchema)
    const elicited = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } }, ElicitResultSchema)
    return { content: [{ type: 'text', text: `${sampled.content.text} / ${elicited.action} ${elicited.content?.name ?? ''}` }] }
  })
  s.prompt('greet', 'A greeting', { who: z.string() }, ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello ' + who } }] }))
  return s
}

const transports = {}

function cors (res) {
  res.setHeader('Access-Control-Allow-Origin', '*')
  res.setHeader('Access-Control-Allow-Headers', '*')
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS')
  res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id')
}

const httpServer = http.createServer(async (req, res) => {
  cors(res)
  if (req.method === 'OPTIONS') { res.writeHead(204).end(); return }
  if (req.url !== '/mcp') { res.writeHead(404).end(); return }
  let body
  if (req.method === 'POST') {
    const chunks = []
    for await (const c of req) chunks.push(c)
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch { body = undefined }
  }
  const sid = req.headers['mcp-session-id']
  let transport = sid && transports[sid]
  if (!transport) {
    if (req.method === 'POST' && body && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        enableJsonResponse: typed,
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: id => { transports[id] = transport }
      })
      transport.onclose = () => { if (transport.sessionId) delete transports[transport.sessionId] }
      await newServer().connect(transport)
    } else {
      res.writeHead(400, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }))
      return
    }
  }
  if (typed) relabel(res)
  await transport.handleRequest(req, res, body)
})

// relabel adds a parameter to every application/json answer's type
function relabel (res) {
  const writeHead = res.writeHead.bind(res)
  res.writeHead = (status, ...rest) => {
    const headers = rest.find(h => h && typeof h === 'object')
    for (const k of Object.keys(headers || {})) {
      if (k.toLowerCase() === 'content-type' && String(headers[k]).startsWith('application/json')) headers[k] = 'application/json; profile=jsonrpc'
    }
    if (String(res.getHeader('content-type') || '').startsWith('application/json')) res.setHeader('content-type', 'application/json; profile=jsonrpc')
    return writeHead(status, ...rest)
  }
}
httpServer.listen(port, '127.0.0.1', () => console.log(`server http://127.0.0.1:${httpServer.address().port}/mcp`))
