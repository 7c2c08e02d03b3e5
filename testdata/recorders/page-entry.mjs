// The page's script: runs the scenario the page's URL names against the
// MCP endpoint it names, then says so in the title.
import { scenarios } from './scenarios.mjs'
const q = new URLSearchParams(location.search)
scenarios[q.get('scenario')](q.get('mcp')).then(() => { document.title = 'done' }, (e) => { document.title = 'error: ' + e })
