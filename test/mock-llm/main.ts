/**
 * CLI for the mock LLM server, for end-to-end runs and benchmarks:
 *
 *   npm run mock-llm -- --port 8787 --latency-ms 1000 --mode shape --branching 3
 *
 * Options:
 *   --port N           port to listen on (default 8787; 0 picks a free one)
 *   --host H           address to bind (default 127.0.0.1)
 *   --latency-ms N     delay before every answer (default 1000: a realistic LLM call)
 *   --mode M           offline (answers from the offline model) | shape (fixed tree)
 *   --branching N      shape mode: subgoals per decomposition, 2..6 (default 3)
 *   --score X          shape mode: score every proposal gets, 0..1 (default 0.8)
 *   --scores realistic shape mode: spread scores, some under 0.6, scorers that disagree
 *   --capability C     shape mode: capability every leaf needs (default can_write_text)
 *   --keys a,b         accepted API keys (default: accept any, even none)
 *   --retry-after S    retry-after seconds on simulated 429s (default 1)
 *   --structured M     follow | ignore | reject requests for structured output (default follow;
 *                      ignore and reject act like local servers that do not support it)
 *   --tools M          use | ignore | reject requests that offer tools (run_javascript, web
 *                      search): use follows the script in tools.ts (default); reject answers
 *                      400 naming tools, like a server without tool calling
 *   --persona NAME     serve every request with a real model's habits (test/mock-llm/personas.ts:
 *                      think, chatty, plain-text, truncating, rate-limited, reasoning-field,
 *                      overloaded, no-tools, slow, verbose); its latency replaces --latency-ms.
 *                      A request may pick its own: header x-mock-persona, or model "persona:NAME"
 *   --seed N           seeds the personas' draws (default 1): same seed, same habits
 *   --time-scale X     multiplies personas' latencies and rate-limit windows (default 1)
 *   --quiet            do not log each request
 *   --requests-log F   append each answered request to F as a JSON line (path, api, task,
 *                      status and the key it carried), for tests that run it elsewhere
 */
import { appendFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { CAPABILITIES, type Capability } from '../../src/llm/types'
import { createMockLlmServer, DEFAULT_BEHAVIOUR } from './server'
import { isPersonaName, PERSONA_NAMES } from './personas'

/** The port the docs and e2e configs use by default. */
const DEFAULT_PORT = 8787
/** Benchmarks want calls as slow as a real LLM's; about a second is typical for short replies. */
const DEFAULT_CLI_LATENCY_MS = 1000

function fail(message: string): never {
  console.error(`mock-llm: ${message}`)
  process.exit(2)
}

function num(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isFinite(n)) fail(`--${name} must be a number, got "${value}"`)
  return n
}

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'latency-ms': { type: 'string' },
    mode: { type: 'string' },
    branching: { type: 'string' },
    score: { type: 'string' },
    scores: { type: 'string' },
    capability: { type: 'string' },
    keys: { type: 'string' },
    'retry-after': { type: 'string' },
    structured: { type: 'string' },
    tools: { type: 'string' },
    persona: { type: 'string' },
    seed: { type: 'string' },
    'time-scale': { type: 'string' },
    quiet: { type: 'boolean' },
    'requests-log': { type: 'string' },
  },
  strict: true,
})

const mode = values.mode ?? 'offline'
if (mode !== 'offline' && mode !== 'shape') fail(`--mode must be offline or shape, got "${mode}"`)
const capability = (values.capability ?? DEFAULT_BEHAVIOUR.capability) as Capability
if (!CAPABILITIES.includes(capability))
  fail(`--capability must be one of ${CAPABILITIES.join(', ')}`)
const structured = values.structured ?? DEFAULT_BEHAVIOUR.structuredOutput
if (structured !== 'follow' && structured !== 'ignore' && structured !== 'reject') {
  fail(`--structured must be follow, ignore or reject, got "${structured}"`)
}
const tools = values.tools ?? DEFAULT_BEHAVIOUR.tools
if (tools !== 'use' && tools !== 'ignore' && tools !== 'reject')
  fail(`--tools must be use, ignore or reject, got "${tools}"`)
const score = num(values.score, 'score', DEFAULT_BEHAVIOUR.score)
if (score < 0 || score > 1) fail('--score must be between 0 and 1')
const scores = values.scores ?? 'fixed'
if (scores !== 'fixed' && scores !== 'realistic')
  fail(`--scores must be fixed or realistic, got "${scores}"`)

const persona = values.persona
if (persona !== undefined && !isPersonaName(persona))
  fail(`--persona must be one of ${PERSONA_NAMES.join(', ')}, got "${persona}"`)
const timeScale = num(values['time-scale'], 'time-scale', DEFAULT_BEHAVIOUR.timeScale)
if (timeScale <= 0) fail('--time-scale must be above 0')

const server = await createMockLlmServer({
  persona,
  seed: num(values.seed, 'seed', DEFAULT_BEHAVIOUR.seed),
  timeScale,
  port: num(values.port, 'port', DEFAULT_PORT),
  host: values.host ?? '127.0.0.1',
  latencyMs: num(values['latency-ms'], 'latency-ms', DEFAULT_CLI_LATENCY_MS),
  mode,
  branching: num(values.branching, 'branching', DEFAULT_BEHAVIOUR.branching),
  score,
  scores,
  capability,
  keys: values.keys
    ? values.keys
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== '')
    : undefined,
  retryAfterSeconds: num(values['retry-after'], 'retry-after', DEFAULT_BEHAVIOUR.retryAfterSeconds),
  structuredOutput: structured,
  tools,
})

const b = server.behaviour()
console.log(
  `mock LLM listening on ${server.url} (mode ${b.mode}, latency ${b.persona ? `the persona's` : `${b.latencyMs} ms`}${b.mode === 'shape' ? `, branching ${b.branching}, score ${b.scores === 'realistic' ? 'realistic' : b.score}` : ''})`,
)
console.log(`  Anthropic:          baseUrl ${server.url}/v1`)
console.log(`  OpenAI:             baseUrl ${server.url}/v1 (web search on /v1/responses)`)
console.log(`  OpenAI-compatible:  baseUrl ${server.url}/v1`)
if (b.persona) console.log(`  persona: ${b.persona} (seed ${b.seed}, time scale ${b.timeScale})`)
console.log(b.keys ? `  accepted keys: ${b.keys.length}` : '  any API key accepted')

/** The key a request carried, as the provider would read it. */
function keyOf(headers: Record<string, string>): string | undefined {
  return headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, '')
}

const requestsLog = values['requests-log']
if (!values.quiet || requestsLog !== undefined) {
  let logged = 0
  setInterval(() => {
    for (; logged < server.requests.length; logged++) {
      const r = server.requests[logged]!
      if (r.status === 0) break // still in flight; log it once answered
      if (requestsLog !== undefined) {
        const { at, path, api, taskKind, status } = r
        const line = { at, path, api, taskKind, status, key: keyOf(r.headers) }
        appendFileSync(requestsLog, JSON.stringify(line) + '\n')
      }
      if (values.quiet) continue
      console.log(
        `${new Date(r.at).toISOString()} ${r.method} ${r.path} ${r.api ?? ''} ${r.taskKind ?? ''} ${r.form ?? ''} -> ${r.status}${r.failure ? ` (${r.failure})` : ''}${r.persona ? ` [${r.persona}${r.cut ? ', cut' : ''}]` : ''}`,
      )
    }
  }, 250).unref()
}

const stop = () => {
  void server.close().finally(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
