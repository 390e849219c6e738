/**
 * CLI for the mock LLM server, for end-to-end runs and benchmarks:
 *
 *   npm run mock-llm -- --port 8787 --latency-ms 1000 --mode shape --branching 3
 *
 * Its options and personas: `npm run mock-llm -- --help` (options.ts). A
 * mistake is one line on stderr and exit code 2.
 */
import { appendFileSync } from 'node:fs'
import { EXIT_USAGE, UsageError } from '../../src/cli/options'
import { MOCK_USAGE, parseMockArgs, type MockCommand } from './options'
import { createMockLlmServer } from './server'

function commandOrExit(argv: string[]): MockCommand {
  try {
    const parsed = parseMockArgs(argv)
    if (parsed.kind === 'run') return parsed.command
    console.log(MOCK_USAGE)
    process.exit(0)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    console.error(`mock-llm: ${err.message}; npm run mock-llm -- --help lists every option`)
    process.exit(EXIT_USAGE)
  }
}

const command = commandOrExit(process.argv.slice(2))
const server = await createMockLlmServer(command.server)

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

const { requestsLog, quiet } = command
if (!quiet || requestsLog !== undefined) {
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
      if (quiet) continue
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
