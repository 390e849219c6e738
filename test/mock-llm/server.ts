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
import { hashString } from '../../src/llm/offline-model/rng'
import type { Capability, LlmTaskKind } from '../../src/llm/types'
import {
  answerTask,
  INVALID_JSON_TEXT,
  recogniseTask,
  schemaViolation,
  type MockMode,
} from './answers'
import {
  chattyJson,
  completion,
  errorBody,
  parseAnthropic,
  parseOpenAi,
  type ParsedRequest,
} from './wire'
import {
  answerWithRun,
  answerWithSources,
  codeCallReply,
  DEFAULT_SEARCH_RESULTS,
  parseResponses,
  responsesTextReply,
  searchReply,
  stdoutOf,
  toolState,
  type ToolApi,
} from './tools'
import { replyText, sendStream, streamEvents, sseText } from './stream'
import { offlineProgram } from '../../src/llm/offline-model/code-model'
import { estimateTokens } from '../../src/llm/tokens'
import { PersonaDesk, personaCompletion, type PersonaTurn } from './persona-desk'
import { PERSONA_HEADER, personaFor, type PersonaName } from './personas'
import type { RateLimitSignal } from './habits'

export type FailureKind = 'rate-limit' | 'server-error' | 'invalid-json' | 'schema-violation'

export interface MockBehaviour {
  /** 'offline': answers from the offline model; 'shape': a fixed tree (see answers.ts) */
  mode: MockMode
  branching: number
  score: number
  /** shape mode: 'fixed' (every score is `score`) or 'realistic' (see answers.ts) */
  scores: 'fixed' | 'realistic'
  capability: Capability
  /** delay before every answer, in ms */
  latencyMs: number
  /** accepted API keys; undefined accepts anything, even no key (like a local server) */
  keys: readonly string[] | undefined
  /** the retry-after header on simulated 429s, in seconds */
  retryAfterSeconds: number
  /**
   * How the "model" treats requests for structured output (response_format,
   * output_config, forced tools): 'follow' answers in kind; 'ignore' answers
   * in chatty text anyway, like many local models; 'reject' answers 400, like
   * servers that do not support the parameter.
   */
  structuredOutput: 'follow' | 'ignore' | 'reject'
  /**
   * Requests that offer tools (run_javascript, web search): 'use' follows the
   * script (tools.ts); 'ignore' answers in text as if none were offered;
   * 'reject' answers 400 naming the tools, like a server without tool calling.
   */
  tools: 'use' | 'ignore' | 'reject'
  /** the program the "model" runs with run_javascript (default: the offline model's for the task) */
  toolCode: string | undefined
  /** run_javascript calls before it answers (a large number: it never stops by itself) */
  codeRounds: number
  /** what a web search finds */
  searchResults: readonly { title: string; url: string }[]
  /** the persona serving requests that do not name one (personas.ts); undefined: none */
  persona: PersonaName | undefined
  /** seeds every persona draw: the same seed and requests give the same habits */
  seed: number
  /**
   * multiplies personas' latencies and rate-limit windows (given at
   * real-world scale): 1 for a bench, a small fraction for CI
   */
  timeScale: number
}

export interface MockLlmServerInit extends Partial<MockBehaviour> {
  /** 0 (default) picks a free port */
  port?: number
  /** default 127.0.0.1: tests use loopback only */
  host?: string
}

export interface MockRequestLog {
  at: number
  method: string
  path: string
  /** lower-case header names; includes the key headers so tests can see which keys arrived */
  headers: Record<string, string>
  body: unknown
  api?: ToolApi
  taskKind?: LlmTaskKind
  /** what this reply did with tools: called run_javascript, searched, or answered after tool results */
  tool?: 'code-call' | 'search' | 'answer-after-code'
  /** how the request asked for JSON, hence how it was answered */
  form?: ParsedRequest['form']
  status: number
  failure?: FailureKind
  /** the response body as sent (a streamed reply: its server-sent events), so tests can compare it with what a tab shows */
  reply?: string
  /** the model's reply text (a streamed reply's text deltas joined), when it answered in text */
  replyText?: string
  /** the reply was streamed (the request said `stream: true`) */
  streamed?: boolean
  /** the persona that served it */
  persona?: PersonaName
  /** which attempt at its task (by its key) this was, for the persona: 0 for the first */
  attempt?: number
  /** the persona cut the reply at the token limit */
  cut?: boolean
  /** a persona's 429: the wait its back-off signal gave, in ms, and which signal */
  waitMs?: number
  signal?: RateLimitSignal
  /** the correct answer, before any persona's habits (tests compare results with it) */
  answer?: unknown
  /** a hash of the task the request was for: equal for every attempt and peer at the same task */
  taskHash?: number
}

export interface MockLlmServer {
  /** http://host:port (no /v1): provider base URLs are `${url}/v1` */
  url: string
  port: number
  requests: MockRequestLog[]
  behaviour(): MockBehaviour
  setBehaviour(patch: Partial<MockBehaviour>): void
  /**
   * Forget how often each prompt was seen, so a second run of the same
   * workload (a bench's other side) gets the same answers in the same order,
   * and the same persona habits and latencies.
   */
  resetSeeds(): void
  /** make the next n LLM requests fail this way (queued after any earlier failNext) */
  failNext(n: number, kind: FailureKind): void
  /**
   * Holds every LLM answer (after its latency) until the returned release is
   * called: a test can act while a call is surely still running, however
   * slow the machine is.
   */
  hold(): () => void
  /**
   * Holds every streamed answer halfway (half its events sent) until the
   * returned release is called: a test sees text arrive before the call ends.
   */
  holdStream(): () => void
  close(): Promise<void>
}

export const DEFAULT_BEHAVIOUR: MockBehaviour = {
  mode: 'offline',
  // The prototype's usual fan-out; small enough for quick benchmark trees.
  branching: 3,
  // Above the 0.6 acceptance threshold, so shape-mode proposals are accepted at once.
  score: 0.8,
  scores: 'fixed',
  capability: 'can_write_text',
  latencyMs: 0,
  keys: undefined,
  // Short, so tests that exercise it do not wait long; real providers say 1 to 60 s.
  retryAfterSeconds: 1,
  structuredOutput: 'follow',
  tools: 'use',
  toolCode: undefined,
  codeRounds: 1,
  searchResults: DEFAULT_SEARCH_RESULTS,
  persona: undefined,
  seed: 1,
  timeScale: 1,
}

/**
 * Where a retry's prompt tells the model what was wrong (src/llm/prompts.ts
 * withRetryFeedback): the tag, bare or with the prompt's nonce.
 */
const RETRY_FEEDBACK_TAG = /<previous_reply_error[->]/

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

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
      return send(res, 401, errorBody(api, 'auth'))
    }
    const tools = toolState(route, body)
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
    const refusal = persona && desk.refuseTools(persona, api, String(body.model ?? ''), tools.any)
    if (refusal) {
      log.status = refusal.status
      return send(res, refusal.status, refusal.body, refusal.headers)
    }
    if (tools.any && behaviour.tools === 'reject') {
      log.status = 400
      return send(res, 400, errorBody(api, 'bad-request', 'mock-model does not support tools'))
    }
    let parsed: ParsedRequest =
      route === 'anthropic'
        ? parseAnthropic(body)
        : route === 'responses'
          ? { api: 'openai', form: 'text', stream: body.stream === true, ...parseResponses(body) }
          : parseOpenAi(body)
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
    const task = recogniseTask(parsed.system, parsed.prompt, parsed.schemaName)
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
        const answer = { output: answerWithRun(output, stdoutOf(tools.results.at(-1)!)) }
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
