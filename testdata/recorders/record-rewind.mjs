// Records the mcp-rewind caches under rewind/: the Node SDK client through
// mcp-rewind (record or hybrid mode) through envproxy.mjs to the servers,
// so each cache has the same traffic as envelopes next to it (rewind/NAME
// and rewind/NAME.jsonl). Needs Node.js >= 22.14 (mcp-rewind's engines).
//   node record-rewind.mjs /path/to/mcp-rewind
import { spawn } from 'node:child_process'
import { rmSync, mkdirSync } from 'node:fs'
import { join, dirname, basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEnvelopeProxy } from './envproxy.mjs'
import { scenarios } from './scenarios.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const rewind = process.argv[2] || '/tmp/mcp-rewind'
const SERVER = 38101
const SERVER2026 = 38102
const PROXY = 38110
const REWIND = 38112
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

// runs: [scenario, mcp-rewind's extra flags] into one cache directory
const caches = {
  clean: [['clean', []]],
  'rpc-errors': [['rpc-errors', []]],
  'server-requests': [['server-requests', []]],
  // the same session twice, and a second recording into the directory
  'second-run': [['clean', []], ['tool-errors', []]],
  'routing-2026': [['routing-2026', []]],
  // recorded, then replayed with record fallback (--replay --url)
  hybrid: [['clean', []], ['tool-errors', ['--replay']]]
}

async function run (dir, scenario, flags, proxy) {
  const p = spawn(process.execPath, [join(rewind, 'index.js'), '--port', String(REWIND), '--url', `http://127.0.0.1:${PROXY}/mcp`, '--cache', dir, ...flags], { stdio: ['ignore', 'inherit', 'inherit'] })
  await sleep(1200)
  try {
    await scenarios[scenario](`http://127.0.0.1:${REWIND}/mcp`)
  } finally {
    await sleep(300)
    p.kill()
    await new Promise(resolve => p.on('exit', resolve))
  }
}

async function main () {
  const only = process.argv.slice(3)
  const servers = [spawn(process.execPath, [join(here, 'server.mjs'), String(SERVER)], { stdio: 'inherit' }), spawn(process.execPath, [join(here, 'server2026.mjs'), String(SERVER2026)], { stdio: 'inherit' })]
  await sleep(1500)
  try {
    for (const [name, runs] of Object.entries(caches)) {
      if (only.length && !only.includes(name)) continue
      const dir = join(here, 'rewind', name)
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(dir, { recursive: true })
      const upstream = runs[0][0] === 'routing-2026' ? SERVER2026 : SERVER
      // the reader labels a cache by its directory (mcp-rewind keeps the
      // request's path only)
      const proxy = await startEnvelopeProxy({ listenPort: PROXY, target: `http://127.0.0.1:${upstream}`, out: dir + '.jsonl', label: basename(dir) })
      try {
        for (const [scenario, flags] of runs) await run(dir, scenario, flags, proxy)
      } finally {
        await sleep(200)
        proxy.close()
      }
      console.log(`recorded ${name}`)
    }
  } finally {
    for (const s of servers) s.kill()
  }
}

main().catch(e => { console.error(e); process.exit(1) })
