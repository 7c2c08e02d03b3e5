// A recording proxy written for mcpcheck's fixtures: it forwards every
// HTTP exchange to the server and writes what crossed it as mcpsnoop-style
// JSONL envelopes (spec §2.1): one c2s envelope per request (batches split),
// one s2c envelope per SSE event or JSON answer, a status-only envelope for
// an answer without a body. Frames are written in the order the proxy saw
// them; a frame without a session id joins the last session seen, and one
// before any (a probe before initialize) waits for the first.
import http from 'node:http'
import { appendFileSync, writeFileSync } from 'node:fs'

export function startEnvelopeProxy ({ listenPort, target, out, label }) {
  writeFileSync(out, '')
  const seqs = {}
  let waiting = [] // envelopes without a session yet
  let conns = 0
  const write = (env) => {
    if (!env.session_id) { waiting.push(env); return }
    seqs[env.session_id] = (seqs[env.session_id] || 0) + 1
    const { session_id: sid, ...rest } = env
    appendFileSync(out, JSON.stringify({ session_id: sid, server_label: label, seq: seqs[sid], ...rest }) + '\n')
  }
  let current // the last session id seen: frames without one join it, as readers of HTTP formats do
  const learn = (sid) => {
    if (!sid) return
    current = sid
    const w = waiting
    waiting = []
    for (const env of w) write({ ...env, session_id: sid })
  }
  const server = http.createServer((req, res) => {
    if (!req.socket.connId) req.socket.connId = 'c' + (++conns)
    const conn = req.socket.connId
    const chunks = []
    req.on('data', c => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const sid = req.headers['mcp-session-id']
      const h = (n) => req.headers[n]
      const common = { transport: 'http', conn_id: conn }
      const reqEnv = { ...common, direction: 'c2s', mcp_method: h('mcp-method'), mcp_name: h('mcp-name'), mcp_protocol_version: h('mcp-protocol-version'), accept: h('accept'), content_type: h('content-type'), origin: h('origin') }
      const params = Object.keys(req.headers).filter(k => k.startsWith('mcp-param-')).map(k => ({ name: k, value: req.headers[k] }))
      if (params.length) reqEnv.mcp_param_headers = params
      const isMCP = req.method === 'POST' || (req.method === 'GET' && sid) || (req.method === 'DELETE' && sid)
      let frames = []
      if (req.method === 'POST' && body.length) {
        try {
          const msg = JSON.parse(body.toString('utf8'))
          frames = Array.isArray(msg) ? msg.map(m => ({ raw: m, batch: true })) : [{ raw: msg }]
        } catch { frames = [{ text: body.toString('utf8') }] }
      }
      const up = http.request(target + req.url.replace(/^\/mcp/, '/mcp'), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (ures) => {
        res.writeHead(ures.statusCode, ures.headers)
        const rsid = ures.headers['mcp-session-id'] || sid || current
        const session = rsid
        if (isMCP) {
          if (session) learn(session) // what waited for this session came first
          for (const f of frames) write({ ...reqEnv, ...f, ts: new Date().toISOString(), session_id: session })
        }
        const ctype = ures.headers['content-type'] || ''
        const sEnv = { ...common, direction: 's2c', status: ures.statusCode, content_type: ctype || undefined, auth_challenge: ures.headers['www-authenticate'] }
        let buf = ''
        let any = false
        const event = (block) => {
          const data = block.split('\n').filter(l => l.startsWith('data:')).map(l => l.slice(5).replace(/^ /, '')).join('\n')
          if (!data) return
          any = true
          let raw
          try { raw = JSON.parse(data) } catch { write({ ...sEnv, text: data, ts: new Date().toISOString(), session_id: session }); return }
          write({ ...sEnv, raw, ts: new Date().toISOString(), session_id: session })
        }
        const all = []
        ures.on('data', c => {
          res.write(c)
          if (!isMCP) return
          if (ctype.includes('text/event-stream')) {
            buf += c.toString('utf8')
            let i
            while ((i = buf.search(/\r?\n\r?\n/)) >= 0) {
              const m = buf.match(/\r?\n\r?\n/)
              event(buf.slice(0, i).replace(/\r/g, ''))
              buf = buf.slice(i + m[0].length)
            }
          } else all.push(c)
        })
        const done = () => {
          if (!isMCP) return
          if (!ctype.includes('text/event-stream')) {
            const text = Buffer.concat(all).toString('utf8')
            if (text.trim()) {
              try {
                const msg = JSON.parse(text)
                for (const m of (Array.isArray(msg) ? msg : [msg])) write({ ...sEnv, raw: m, ts: new Date().toISOString(), session_id: session })
              } catch { write({ ...sEnv, text, ts: new Date().toISOString(), session_id: session }) }
              any = true
            }
          }
          if (!any) write({ ...sEnv, ts: new Date().toISOString(), session_id: session })
        }
        ures.on('end', () => { done(); res.end() })
        ures.on('aborted', () => { done(); res.destroy() })
        res.on('close', () => { if (!res.writableEnded) ures.destroy() })
      })
      up.on('error', (e) => { res.writeHead(502).end(String(e)) })
      up.end(body)
    })
  })
  return new Promise(resolve => server.listen(listenPort, '127.0.0.1', () => resolve({
    server,
    close: () => { for (const env of waiting.splice(0)) write({ ...env, session_id: label }); server.closeAllConnections(); server.close() }
  })))
}
