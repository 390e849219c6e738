/**
 * A mock LLM HTTP server speaking the real Anthropic Messages and OpenAI
 * Chat Completions wire formats, unstreamed or streamed (server-sent events,
 * stream.ts), so the real provider code runs in tests,
 * end-to-end runs and benchmarks. The LLM is the only thing the project
 * allows to be stood in for; everything else is real.
 *
 *   POST /v1/messages          Anthropic (x-api-key, anthropic-version)
 *   POST /v1/chat/completions  OpenAI and OpenAI-compatible (Authorization: Bearer)
 *   POST /v1/responses         OpenAI Responses (where OpenAI's web search lives)
 *
 * Tool calls (run_javascript, web search) follow a script: see tools.ts.
 *   GET  /v1/models            a one-model list (connection checks)
 *   OPTIONS *                  CORS preflight (browsers call it from another port)
 *
 * Personas (personas.ts) give the answers real models' habits: chosen per
 * server (`persona`) or per request (x-mock-persona header, or a model id
 * `persona:NAME`).
 *
 * Latency sleeps (setTimeout), never spins; requests run concurrently.
 * Binds to 127.0.0.1 unless told otherwise.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cors, keyOf, readBody, send } from './http'
import { hashString } from './rng'
import { answerTask, INVALID_JSON_TEXT, recogniseTask, schemaViolation } from './answers'
import {
  chattyJson,
  completion,
  errorBody,
  parseAnthropic,
  parseOpenAi,
  type ParsedRequest,
} from './wire'
import {
  answerWithSources,
  codeCallReply,
  parseResponses,
  responsesTextReply,
  searchReply,
  runOf,
  RUN_JAVASCRIPT,
  toolState,
  type ToolApi,
} from './tools'
import { replyText, sendStream, streamEvents, sseText } from './stream'
import {
  answerWithToolResults,
  cuedCalls,
  functionCallsReply,
  functionToolState,
} from './mcp-tools'
import { codeAnswer, offlineProgram } from '../../src/llm/offline-model/code-model'
import { estimateTokens } from '../../src/llm/tokens'
import { PersonaDesk, personaCompletion, type PersonaTurn } from './persona-desk'
import { PERSONA_HEADER, personaFor } from './personas'
import {
  DEFAULT_BEHAVIOUR,
  type FailureKind,
  type MockBehaviour,
  type MockLlmServer,
  type MockLlmServerInit,
  type MockRequestLog,
} from './behaviour'

export * from './behaviour'

/**
 * Where a retry's prompt tells the model what was wrong (src/llm/prompts.ts
 * withRetryFeedback): the tag, bare or with the prompt's nonce.
 */
const RETRY_FEEDBACK_TAG = /<previous_reply_error[->]/

function parseRequest(route: ToolApi, body: Record<string, unknown>): ParsedRequest {
  return route === 'anthropic'
    ? parseAnthropic(body)
    : route === 'responses'
      ? { api: 'openai', form: 'text', stream: body.stream === true, ...parseResponses(body) }
      : parseOpenAi(body)
}

const promptOf = (parsed: ParsedRequest) =>
  [parsed.system, parsed.prompt, parsed.schemaName] as const

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * How long an idle keep-alive connection stays open. With Node's default
 * (5 s) a fetch client (undici) keeps an idle connection about 3 s, from
 * the server's Keep-Alive hint less its 2 s margin; on a busy machine its
 * timers fire seconds late, and it sends a request on a connection the
 * server has just closed ("other side closed"): a bench run under load lost
 * calls that way, on one side only. Real providers keep idle connections a
 * minute or more; so does the mock, and the race then needs a connection
 * idle for a minute and a timer late just then.
 */
const KEEP_ALIVE_MS = 65_000

export async function createMockLlmServer(init: MockLlmServerInit = {}): Promise<MockLlmServer> {
  const { port: wantedPort = 0, host = '127.0.0.1', ...patch } = init
  let behaviour: MockBehaviour = { ...DEFAULT_BEHAVIOUR, ...patch }
  const failures: FailureKind[] = []
  const requests: MockRequestLog[] = []
  // How often each prompt was seen: the n-th identical request gets seed n, so peers asking
  // the same question get different (but reproducible) answers, as from a sampling model.
  const seen = new Map<number, number>()
  let held: Promise<void> | null = null
  let heldStream: Promise<void> | null = null
  const desk = new PersonaDesk(() => ({ seed: behaviour.seed, timeScale: behaviour.timeScale }))

  /** Sends a complete reply: as JSON, or streamed when the request asked for a stream. */
  async function reply(
    res: ServerResponse,
    log: MockRequestLog,
    parsed: ParsedRequest,
    body: Record<string, unknown>,
  ) {
    log.replyText = replyText(parsed.api, body, parsed.form === 'tool')
    if (!parsed.stream) return send(res, 200, body)
    log.streamed = true
    const request = log.body as { stream_options?: { include_usage?: unknown } }
    const events = streamEvents(parsed.api, body, request.stream_options?.include_usage === true)
    log.reply = sseText(events)
    const gate = heldStream
    await sendStream(res, events, gate ? () => gate : undefined)
  }

  async function handleLlm(
    route: ToolApi,
    req: IncomingMessage,
    res: ServerResponse,
    log: MockRequestLog,
  ) {
    // error bodies: the Responses API shapes them as Chat Completions does
    const api = route === 'anthropic' ? 'anthropic' : 'openai'
    const raw = await readBody(req)
    let body: Record<string, unknown>
    try {
      body = JSON.parse(raw) as Record<string, unknown>
      log.body = body
    } catch {
      log.body = raw
      log.status = 400
      return send(res, 400, errorBody(api, 'bad-request', 'request body is not valid JSON'))
    }
    log.api = route
    const key = keyOf(api, req.headers)
    if (behaviour.keys !== undefined && (key === undefined || !behaviour.keys.includes(key))) {
      log.status = 401
      // which task the rejected call was for: a test tells a role's task from a model check
      log.taskKind = recogniseTask(...promptOf(parseRequest(route, body)))?.kind
      return send(res, 401, errorBody(api, 'auth'))
    }
    const tools = toolState(route, body)
    // a person's own tools (MCP servers, issue 57): function tools other than run_javascript
    const functions =
      route === 'responses' ? { offered: [], answered: [] } : functionToolState(api, body)
    const anyTools = tools.any || functions.offered.length > 0
    const chosen = personaFor(
      log.headers[PERSONA_HEADER],
      typeof body.model === 'string' ? body.model : '',
      behaviour.persona,
    )
    if ('unknown' in chosen) {
      log.status = 400
      return send(
        res,
        400,
        errorBody(api, 'bad-request', `mock LLM: no persona "${chosen.unknown}"`),
      )
    }
    const persona = chosen.persona
    log.persona = persona?.name
    const refusal = persona && desk.refuseTools(persona, api, String(body.model ?? ''), anyTools)
    if (refusal) {
      log.status = refusal.status
      return send(res, refusal.status, refusal.body, refusal.headers)
    }
    if (anyTools && behaviour.tools === 'reject') {
      log.status = 400
      return send(res, 400, errorBody(api, 'bad-request', 'mock-model does not support tools'))
    }
    let parsed = parseRequest(route, body)
    log.form = parsed.form
    if (parsed.form !== 'text' && behaviour.structuredOutput === 'reject') {
      log.status = 400
      const what =
        api === 'anthropic' ? 'output_config / tool_choice' : 'response_format / tool_choice'
      return send(
        res,
        400,
        errorBody(api, 'bad-request', `${what} is not supported by this server`),
      )
    }
    if (behaviour.structuredOutput === 'ignore') parsed = { ...parsed, form: 'text' }
    log.form = parsed.form
    if (parsed.stream && route === 'responses') {
      log.status = 400
      return send(
        res,
        400,
        errorBody(api, 'bad-request', 'the mock LLM does not stream the Responses API'),
      )
    }
    const task = recogniseTask(...promptOf(parsed))
    log.taskKind = task?.kind
    if (task) log.taskHash = hashString(JSON.stringify(task))
    const turn: PersonaTurn | undefined = persona
      ? desk.turn(persona, api, keyOf(api, req.headers) ?? '', task, parsed.system)
      : undefined
    log.attempt = turn?.attempt
    const latencyMs = turn ? turn.latencyMs : behaviour.latencyMs
    if (latencyMs > 0) await sleep(latencyMs)
    while (held) await held
    if (turn?.refusal) {
      log.waitMs = turn.waitMs
      log.signal = turn.signal
      log.status = turn.refusal.status
      return send(res, turn.refusal.status, turn.refusal.body, turn.refusal.headers)
    }
    const failure = failures.shift()
    log.failure = failure
    if (failure === 'rate-limit') {
      log.status = 429
      return send(res, 429, errorBody(api, 'rate-limit'), {
        'retry-after': String(behaviour.retryAfterSeconds),
      })
    }
    if (failure === 'server-error') {
      log.status = 500
      return send(res, 500, errorBody(api, 'server-error'))
    }
    log.status = 200
    if (failure === 'invalid-json')
      return reply(res, log, parsed, completion(parsed, undefined, INVALID_JSON_TEXT))
    if (failure === 'schema-violation')
      return reply(res, log, parsed, completion(parsed, schemaViolation(task?.kind)))
    if (!task) {
      // Not one of ours: answer like a model would, in plain text.
      return reply(
        res,
        log,
        parsed,
        completion(
          { ...parsed, form: 'text' },
          undefined,
          'Mock LLM: no Murmuration task marker found.',
        ),
      )
    }
    const promptHash = hashString(`${parsed.system}\n${parsed.prompt}`)
    // a tool loop's later calls repeat the prompt: they are the same "sampling", not a new one
    const n =
      tools.results.length > 0
        ? Math.max(0, (seen.get(promptHash) ?? 1) - 1)
        : (seen.get(promptHash) ?? 0)
    if (tools.results.length === 0) seen.set(promptHash, n + 1)
    const value = answerTask(task, behaviour.mode, behaviour, `mock-${n}`)
    const inputTokens = estimateTokens(`${parsed.system}${parsed.prompt}${tools.results.join('')}`)
    const output = (value as { output?: unknown }).output
    if (task.kind === 'execute' && behaviour.tools === 'use' && typeof output === 'string') {
      const cued = cuedCalls(task, functions.offered)
      if (functions.answered.length === 0 && cued.length > 0) {
        log.tool = 'function-call'
        return reply(res, log, parsed, functionCallsReply(api, parsed.model, cued, inputTokens))
      }
      if (functions.answered.length > 0) {
        log.tool = 'answer-after-tools'
        // the answer quotes what the tools REALLY returned, as their results came back
        return answerAs(
          { ...parsed, form: 'json' },
          { output: answerWithToolResults(output, functions.answered) },
        )
      }
      if (tools.code && tools.results.length < behaviour.codeRounds) {
        log.tool = 'code-call'
        const code = behaviour.toolCode ?? offlineProgram(task)
        const call = codeCallReply(route, parsed.model, code, inputTokens)
        return route === 'responses' ? send(res, 200, call) : reply(res, log, parsed, call)
      }
      if (tools.search && route !== 'openai') {
        log.tool = 'search'
        const sources = behaviour.searchResults
        const text = JSON.stringify({ output: answerWithSources(output, sources) })
        return send(
          res,
          200,
          searchReply(route, parsed.model, task.task, sources, text, inputTokens),
        )
      }
      if (tools.results.length > 0) {
        log.tool = 'answer-after-code'
        // the answer quotes what the program REALLY printed, as the tool result brought it back
        const code = behaviour.toolCode ?? offlineProgram(task)
        const uses = tools.results.map((r) => ({
          name: RUN_JAVASCRIPT,
          input: { code },
          output: runOf(r),
        }))
        const answer = { output: codeAnswer(task, uses) }
        if (route === 'responses')
          return send(
            res,
            200,
            responsesTextReply(parsed.model, JSON.stringify(answer), inputTokens),
          )
        return answerAs({ ...parsed, form: 'json' }, answer)
      }
    }
    if (route === 'responses') {
      const text = parsed.form === 'text' ? chattyJson(value) : JSON.stringify(value)
      return send(res, 200, responsesTextReply(parsed.model, text, inputTokens))
    }
    return answerAs(parsed, value)

    /** The correct answer, as the persona (if any) writes it. */
    function answerAs(request: ParsedRequest, value: unknown) {
      log.answer = value
      const retry = RETRY_FEEDBACK_TAG.test(request.prompt)
      const { body, habits } = personaCompletion(request, value, turn, task, retry)
      if (habits?.cut) log.cut = true
      return reply(res, log, request, body)
    }
  }

  const server = createServer((req, res) => {
    cors(req, res)
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v
    const log: MockRequestLog = {
      at: Date.now(),
      method: req.method ?? 'GET',
      path,
      headers,
      body: undefined,
      status: 0,
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204)
      res.end()
      return
    }
    requests.push(log)
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] === 'string') log.reply = args[0]
      return end(...args)
    }) as typeof res.end
    const done = (p: Promise<void> | void) =>
      Promise.resolve(p).catch((error: unknown) => {
        log.status = 500
        if (!res.headersSent) send(res, 500, { error: { message: String(error) } })
      })
    if (req.method === 'POST' && path.endsWith('/messages'))
      return void done(handleLlm('anthropic', req, res, log))
    if (req.method === 'POST' && path.endsWith('/chat/completions'))
      return void done(handleLlm('openai', req, res, log))
    if (req.method === 'POST' && path.endsWith('/responses'))
      return void done(handleLlm('responses', req, res, log))
    if (req.method === 'GET' && path.endsWith('/models')) {
      log.status = 200
      return send(res, 200, {
        object: 'list',
        data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }],
      })
    }
    log.status = 404
    send(res, 404, { error: { message: `mock LLM: no route for ${req.method} ${path}` } })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.keepAliveTimeout = KEEP_ALIVE_MS
    server.listen(wantedPort, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const hostForUrl = host.includes(':') ? `[${host}]` : host

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    requests,
    behaviour: () => ({ ...behaviour }),
    setBehaviour(next) {
      behaviour = { ...behaviour, ...next }
    },
    resetSeeds() {
      seen.clear()
      desk.reset()
    },
    failNext(n, kind) {
      for (let i = 0; i < n; i++) failures.push(kind)
    },
    hold() {
      let release!: () => void
      const gate = new Promise<void>((resolve) => (release = resolve))
      held = gate
      return () => {
        if (held === gate) held = null
        release()
      }
    },
    holdStream() {
      let release!: () => void
      const gate = new Promise<void>((resolve) => (release = resolve))
      heldStream = gate
      return () => {
        if (heldStream === gate) heldStream = null
        release()
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
