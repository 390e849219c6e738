/**
 * A tab's check of its model settings, the browser's twin of the agent's
 * start-up check (src/cli/model-check.ts): one cheap call to the endpoint the
 * role will use (the same URL, headers and key), made from the page, so it
 * meets the same CORS and Local Network Access rules as the role's worker.
 *
 * A browser's fetch says only "TypeError: Failed to fetch" for a refused
 * connection, a CORS refusal and Chromium's Local Network Access block
 * alike. We tell them apart by what we know without the network (mixed
 * content; the page's and the target's address spaces, address-space.ts)
 * and, failing that, by a second request in no-cors mode: an opaque answer
 * proves a server is listening, so the first one was refused by CORS.
 *
 * Raw fetch, not the AI SDK: the page must not load the LLM layer (it lives
 * in the role's worker), and the check needs the HTTP status as it is.
 */
import { isLocalNetworkRequest, addressSpaceOf } from './address-space'
import { isAbortError, parseRetryAfter } from './errors'
import type { ModelConfig } from './types'

/** Output cap: the reply is not used, only the fact that the model answered. */
export const PROBE_MAX_OUTPUT_TOKENS = 16
/** A hosted API answers a 16-token call in 1–3 s; past this we say the answer is slow. */
export const PROBE_SLOW_MS = 10_000
/** Local servers load a large model from disk on its first call, which can take minutes. */
export const PROBE_TIMEOUT_MS = 5 * 60_000
/** The side requests (is a server there at all?) go to a listening server and back at once. */
export const SIDE_PROBE_TIMEOUT_MS = 5_000

/** The providers' own default addresses, as the AI SDK uses them (ai-sdk-provider.ts). */
const DEFAULT_BASE: Record<'anthropic' | 'openai', string> = {
  anthropic: 'https://api.anthropic.com/v1',
  openai: 'https://api.openai.com/v1',
}
/** The Anthropic API version the AI SDK sends. */
const ANTHROPIC_VERSION = '2023-06-01'
const PROBE_PROMPT = 'Reply with the single word OK.'
/** How much of a provider's error text we quote. */
const MAX_DETAIL = 200

/** Where the page runs: its own address decides what the browser lets it reach. */
export interface PageContext {
  protocol: string
  hostname: string
  secure: boolean
}

export type ProbeProblem =
  /** 401/403: the key is missing, wrong or lacks access */
  | 'auth'
  /** 404 (or 400) naming the model: the server does not know it */
  | 'unknown-model'
  /** 404 not about a model: nothing at that path (a base URL without /v1?) */
  | 'not-found'
  /** an answer, but not an LLM API's (an HTML page, another app) */
  | 'not-llm'
  /** any other HTTP error */
  | 'http'
  /** a server is there but does not let this page read its answers */
  | 'cors'
  /** Chromium refuses a non-secure page any request to a more private address */
  | 'local-network-blocked'
  /** a secure page's request to a more private address needs the person's permission */
  | 'local-network-permission'
  /** an https page may not call a plain-http server on another machine */
  | 'mixed-content'
  /** no server answered: refused, DNS, offline */
  | 'unreachable'
  /** a plain-http LAN page's call to loopback got nothing: nobody there, or a browser that blocks it */
  | 'unreachable-or-blocked'
  /** no answer within PROBE_TIMEOUT_MS */
  | 'timeout'

export type ProbeResult =
  | { state: 'ok'; ms: number }
  /** 429: the key works, the calls will back off */
  | { state: 'rate-limited'; ms: number; detail: string; retryAfterMs?: number }
  | {
      state: 'failed'
      problem: ProbeProblem
      /** the target's origin, for the words */
      origin: string
      status?: number
      /** the provider's own words, or the browser's */
      detail?: string
      /** timeout: whether the server answered a side request meanwhile */
      serverUp?: boolean
    }

export interface ProbeRequest {
  url: string
  init: { method: 'POST'; headers: Record<string, string>; body: string }
  /** the server's model list, for "is anyone there?" while the call is slow */
  modelsUrl: string
  headers: Record<string, string>
}

function baseOf(config: ModelConfig): string {
  const base =
    config.baseUrl?.trim() ||
    (config.provider === 'anthropic' || config.provider === 'openai'
      ? DEFAULT_BASE[config.provider]
      : '')
  return base.replace(/\/+$/, '')
}

/** The check's request: the role's own endpoint, with a tiny prompt and output cap. */
export function probeRequest(config: ModelConfig): ProbeRequest {
  const base = baseOf(config)
  const key = config.apiKey?.trim()
  const messages = [{ role: 'user', content: PROBE_PROMPT }]
  const json = { 'content-type': 'application/json' }
  if (config.provider === 'anthropic') {
    const headers = {
      'x-api-key': key ?? '',
      'anthropic-version': ANTHROPIC_VERSION,
      // Anthropic refuses browser (CORS) calls without this opt-in, as in ai-sdk-provider.ts
      'anthropic-dangerous-direct-browser-access': 'true',
    }
    return {
      url: `${base}/messages`,
      init: {
        method: 'POST',
        headers: { ...json, ...headers },
        body: JSON.stringify({
          model: config.model,
          max_tokens: PROBE_MAX_OUTPUT_TOKENS,
          messages,
        }),
      },
      modelsUrl: `${base}/models`,
      headers,
    }
  }
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {}
  // OpenAI's reasoning models refuse max_tokens; local servers may not know its successor
  const cap =
    config.provider === 'openai'
      ? { max_completion_tokens: PROBE_MAX_OUTPUT_TOKENS }
      : { max_tokens: PROBE_MAX_OUTPUT_TOKENS }
  return {
    url: `${base}/chat/completions`,
    init: {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify({ model: config.model, messages, ...cap, stream: false }),
    },
    modelsUrl: `${base}/models`,
    headers,
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= MAX_DETAIL ? line : `${line.slice(0, MAX_DETAIL - 1)}…`
}

/** The provider's error text from the usual {error:{message}} (or {error:"…"}) body. */
export function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    if (typeof parsed.error === 'string') return clip(parsed.error)
    if (parsed.error && typeof parsed.error.message === 'string') return clip(parsed.error.message)
    if (typeof parsed.message === 'string') return clip(parsed.message)
  } catch {
    // not JSON: quote the start of the text
  }
  return clip(body)
}

const MODEL_UNKNOWN = /model/i
const NOT_THERE = /not.?found|does not exist|unknown|no such|not (be )?loaded|invalid model|pull/i

/** Does `text` name the model as a word of its own (not "m" inside "completions")? */
function namesModel(text: string, model: string): boolean {
  const name = model.trim()
  if (name === '') return false
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(^|[^\\w.:/-])${escaped}($|[^\\w.:/-])`).test(text)
}

/** An HTTP answer to the check's call, classified. */
export function classifyAnswer(
  { provider, model }: Pick<ModelConfig, 'provider' | 'model'>,
  status: number,
  body: string,
  headers: Record<string, string>,
  ms: number,
  origin: string,
): ProbeResult {
  if (status >= 200 && status < 300) {
    if (looksLikeCompletion(provider, body)) return { state: 'ok', ms }
    return { state: 'failed', problem: 'not-llm', origin, status, detail: clip(body) }
  }
  const detail = errorDetail(body)
  if (status === 401 || status === 403)
    return { state: 'failed', problem: 'auth', origin, status, detail }
  if (status === 429 || status === 529) {
    const retryAfterMs = parseRetryAfter(headers)
    return {
      state: 'rate-limited',
      ms,
      detail,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    }
  }
  // Anthropic says only "model: <name>"; Ollama and OpenAI say it is not found or does not exist
  const aboutModel =
    namesModel(detail, model) || (MODEL_UNKNOWN.test(detail) && NOT_THERE.test(detail))
  if ((status === 404 || status === 400) && aboutModel)
    return { state: 'failed', problem: 'unknown-model', origin, status, detail }
  if (status === 404 || status === 405)
    return { state: 'failed', problem: 'not-found', origin, status, detail }
  return { state: 'failed', problem: 'http', origin, status, detail }
}

function looksLikeCompletion(provider: ModelConfig['provider'], body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { choices?: unknown; content?: unknown }
    return provider === 'anthropic' ? Array.isArray(parsed.content) : Array.isArray(parsed.choices)
  } catch {
    return false
  }
}

/**
 * Why a fetch got no HTTP answer, from what is known without the network
 * and the no-cors request's outcome ('skipped' when it was not made).
 *
 * What Chromium does (checked in Chromium 156, see docs): a non-secure page
 * on a *public* address gets no request through to a local or loopback one
 * (refused before it leaves); a secure one needs the person's permission.
 * From a page on a *LAN* address to loopback, this first stage of Local
 * Network Access lets requests through; Chrome plans to gate them too. So a
 * failure there is either nobody listening or that later block: we say both.
 */
export function diagnoseNoAnswer(
  page: PageContext,
  target: URL,
  noCors: 'opaque' | 'failed' | 'skipped',
): NoAnswerProblem {
  // http://localhost and 127.x are potentially trustworthy: no mixed content for them
  if (
    page.protocol === 'https:' &&
    target.protocol === 'http:' &&
    addressSpaceOf(target.hostname) !== 'loopback'
  )
    return 'mixed-content'
  if (isLocalNetworkRequest(page.hostname, target.hostname)) {
    if (addressSpaceOf(page.hostname) === 'public')
      return page.secure ? 'local-network-permission' : 'local-network-blocked'
    if (noCors === 'opaque') return 'cors'
    return page.secure ? 'unreachable' : 'unreachable-or-blocked'
  }
  return noCors === 'opaque' ? 'cors' : 'unreachable'
}

type NoAnswerProblem = Extract<
  ProbeProblem,
  | 'cors'
  | 'local-network-blocked'
  | 'local-network-permission'
  | 'mixed-content'
  | 'unreachable'
  | 'unreachable-or-blocked'
>

/** Do we need the no-cors request to tell what happened? */
export function needsNoCorsProbe(page: PageContext, target: URL): boolean {
  const known = diagnoseNoAnswer(page, target, 'skipped')
  return known === 'unreachable' || known === 'unreachable-or-blocked'
}

export interface ProbeOptions {
  page: PageContext
  fetch?: typeof fetch
  signal?: AbortSignal
  /** called once when the answer is slow: serverUp says whether the server answered a side request */
  onSlow?: (serverUp: boolean) => void
  slowMs?: number
  timeoutMs?: number
  sideTimeoutMs?: number
}

/** Runs the check. Resolves to what happened; rejects only when `signal` aborts it. */
export async function probeModel(config: ModelConfig, options: ProbeOptions): Promise<ProbeResult> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  const request = probeRequest(config)
  const target = new URL(request.url)
  const origin = target.origin
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS
  const sideMs = options.sideTimeoutMs ?? SIDE_PROBE_TIMEOUT_MS
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
  let serverUp = false
  // the side request may come back after the call itself: it must not report "slow" then
  let settled = false
  const slow = setTimeout(() => {
    // is a server there, busy loading the model, or nobody at all?
    void doFetch(request.modelsUrl, {
      headers: request.headers,
      signal: AbortSignal.timeout(sideMs),
    })
      .then((res) => (serverUp = res.status > 0))
      .catch(() => false)
      .then(() => {
        if (!settled && !signal.aborted) options.onSlow?.(serverUp)
      })
  }, options.slowMs ?? PROBE_SLOW_MS)
  const started = performance.now()
  try {
    const res = await doFetch(request.url, { ...request.init, signal })
    const body = await res.text()
    const headers: Record<string, string> = {}
    res.headers.forEach((value, name) => (headers[name] = value))
    return classifyAnswer(
      config,
      res.status,
      body,
      headers,
      Math.round(performance.now() - started),
      origin,
    )
  } catch (err) {
    if (options.signal?.aborted) throw err
    if (isAbortError(err) || timeout.aborted)
      return { state: 'failed', problem: 'timeout', origin, serverUp }
    const detail = err instanceof Error ? err.message : String(err)
    let noCors: 'opaque' | 'failed' | 'skipped' = 'skipped'
    if (needsNoCorsProbe(options.page, target)) {
      noCors = await doFetch(request.modelsUrl, {
        mode: 'no-cors',
        signal: AbortSignal.timeout(sideMs),
      }).then(
        () => 'opaque' as const,
        () => 'failed' as const,
      )
    }
    return {
      state: 'failed',
      problem: diagnoseNoAnswer(options.page, target, noCors),
      origin,
      detail,
    }
  } finally {
    settled = true
    clearTimeout(slow)
  }
}

/** The page's context, as the browser gives it. */
export function currentPage(): PageContext {
  return {
    protocol: location.protocol,
    hostname: location.hostname,
    secure: globalThis.isSecureContext === true,
  }
}
