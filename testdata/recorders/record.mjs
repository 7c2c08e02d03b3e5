// Records the fixtures under har/ (and, with --rewind, rewind/): every
// scenario of scenarios.mjs through each HAR writer, with the envelope
// proxy (envproxy.mjs) between the writer and the server, so each HAR has
// the same traffic as envelopes next to it. See README.md.
//   node record.mjs [har|mitm|rewind ...]
import { spawn } from 'node:child_process'
import http from 'node:http'
import { mkdirSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEnvelopeProxy } from './envproxy.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const work = process.env.RECORD_WORK || '/tmp/rec'
const chromium = process.env.CHROMIUM || '/usr/bin/chromium'
const SERVER = 38101
const SERVER2026 = 38102
const SERVERTYPED = 38103
const PROXY = 38110
const MITM = 38111
const PAGE = 38120
const REWIND = 38112
const chromeFlags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const scenarioNames = process.env.SCENARIOS ? process.env.SCENARIOS.split(',') : ['clean', 'tool-errors', 'progress', 'server-requests', 'version-probe', 'routing-2026', 'typed-json']
const upstream = name => ({ 'routing-2026': SERVER2026, 'typed-json': SERVERTYPED })[name] ?? SERVER

function start (cmd, args, opts = {}) {
  const p = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts })
  return p
}

// the page: an HTML shell and the bundled SDK client (page.js, built by
// esbuild into the work directory)
function pageServer () {
  const js = readFileSync(join(work, 'page.js'))
  const s = http.createServer((req, res) => {
    if (req.url.startsWith('/page.js')) { res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(js); return }
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>recording</title><script type="module" src="/page.js"></script>')
  })
  return new Promise(resolve => s.listen(PAGE, '127.0.0.1', () => resolve(s)))
}

const pageURL = name => `http://127.0.0.1:${PAGE}/?scenario=${name}&mcp=${encodeURIComponent(`http://127.0.0.1:${PROXY}/mcp`)}`
const label = port => `127.0.0.1:${port}/mcp`

async function waitTitle (getTitle) {
  for (let i = 0; i < 200; i++) {
    const t = await getTitle()
    if (t === 'done') return
    if (t.startsWith('error')) throw new Error(t)
    await sleep(50)
  }
  throw new Error('the page never finished')
}

// chrome-har: puppeteer-core drives Debian's chromium; every DevTools
// Network/Page event is kept, response bodies fetched when loading
// finishes, and chrome-har turns the events into HAR.
async function chromeHar (name, outDir) {
  const puppeteer = (await import('puppeteer-core')).default
  const { harFromMessages } = await import('chrome-har')
  const browser = await puppeteer.launch({ executablePath: chromium, args: [...chromeFlags, `--user-data-dir=${join(work, 'profile-' + name)}`], headless: true })
  const page = await browser.newPage()
  page.on('console', m => console.log('page:', m.text()))
  const cdp = await page.createCDPSession()
  const events = []
  const responses = {}
  for (const m of ['Page.loadEventFired', 'Page.domContentEventFired', 'Page.frameStartedLoading', 'Page.frameAttached', 'Page.frameScheduledNavigation',
    'Network.requestWillBeSent', 'Network.requestWillBeSentExtraInfo', 'Network.requestServedFromCache', 'Network.dataReceived',
    'Network.responseReceived', 'Network.responseReceivedExtraInfo', 'Network.resourceChangedPriority', 'Network.loadingFinished', 'Network.loadingFailed']) {
    cdp.on(m, async params => {
      events.push({ method: m, params })
      if (m === 'Network.responseReceived') responses[params.requestId] = params
      // every body but the bundled client script's (300 KB of SDK code)
      if (m === 'Network.loadingFinished' && responses[params.requestId] && !responses[params.requestId].response.url.endsWith('/page.js')) {
        try {
          const b = await cdp.send('Network.getResponseBody', { requestId: params.requestId })
          responses[params.requestId].response.body = b.body
          if (b.base64Encoded) responses[params.requestId].response.encoding = 'base64'
        } catch {}
      }
    })
  }
  await cdp.send('Page.enable')
  await cdp.send('Network.enable')
  await page.goto(pageURL(name))
  await waitTitle(() => page.title())
  await sleep(300)
  const har = harFromMessages(events, { includeTextFromResponseBody: true })
  await browser.close()
  writeFileSync(join(outDir, `${name}.chrome-har.har`), JSON.stringify(har, null, 2) + '\n')
}

// playwright's own HAR writer (recordHar), bodies embedded
async function playwrightHar (name, outDir) {
  const { chromium: pw } = await import('playwright-core')
  const browser = await pw.launch({ executablePath: chromium, args: chromeFlags })
  const context = await browser.newContext({ recordHar: { path: join(outDir, `${name}.playwright.har`), content: 'embed', urlFilter: /^(?!.*\/page\.js$)/ } })
  const page = await context.newPage()
  await page.goto(pageURL(name))
  await waitTitle(() => page.title())
  await sleep(300)
  await context.close()
  await browser.close()
}

// mitmdump in reverse-proxy mode in front of the envelope proxy, its
// har_dump addon (Debian's examples) writing the HAR on exit; the client is
// the SDK in Node.
async function mitmHar (name, outDir) {
  const out = join(outDir, `${name}.mitmproxy.har`)
  const m = start('mitmdump', ['-q', '--mode', `reverse:http://127.0.0.1:${PROXY}`, '--listen-host', '127.0.0.1', '-p', String(MITM),
    '-s', '/usr/share/doc/mitmproxy/examples/contrib/har_dump.py', '--set', `hardump=${out}`])
  await sleep(2500)
  const { scenarios } = await import('./scenarios.mjs')
  await scenarios[name](`http://127.0.0.1:${MITM}/mcp`)
  await sleep(500)
  m.kill('SIGINT')
  await new Promise(resolve => m.on('exit', resolve))
}

const writers = {
  'chrome-har': { run: chromeHar, port: PROXY, skip: [] },
  playwright: { run: playwrightHar, port: PROXY, skip: [] },
  // mitmdump buffers each answer whole, so a stream that waits for the
  // client's answer (server-requests) would never reach it
  mitmproxy: { run: mitmHar, port: PROXY, skip: ['server-requests'] }
}

async function main () {
  const which = process.argv.slice(2)
  const esb = spawn(join(here, 'node_modules/.bin/esbuild'), [join(here, 'page-entry.mjs'), '--bundle', '--minify', '--format=esm', `--outfile=${join(work, 'page.js')}`, '--log-level=warning'], { stdio: 'inherit' })
  await new Promise(resolve => esb.on('exit', resolve))
  const servers = [start(process.execPath, [join(here, 'server.mjs'), String(SERVER)]), start(process.execPath, [join(here, 'server2026.mjs'), String(SERVER2026)]),
    start(process.execPath, [join(here, 'server.mjs'), String(SERVERTYPED), 'typed'])]
  await sleep(1500)
  const page = await pageServer()
  const outDir = join(here, 'har')
  mkdirSync(outDir, { recursive: true })
  try {
    for (const [writer, w] of Object.entries(writers)) {
      if (which.length && !which.includes(writer)) continue
      for (const name of scenarioNames) {
        if (w.skip.includes(name)) continue
        const proxy = await startEnvelopeProxy({ listenPort: PROXY, target: `http://127.0.0.1:${upstream(name)}`, out: join(outDir, `${name}.${writer}.jsonl`), label: label(w.port) })
        try {
          await w.run(name, outDir)
        } finally {
          await sleep(200)
          proxy.close()
        }
        console.log(`recorded ${name} by ${writer}`)
      }
    }
  } finally {
    page.close()
    for (const s of servers) s.kill()
  }
}

main().catch(e => { console.error(e); process.exit(1) })
