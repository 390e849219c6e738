/**
 * How long a provider asked us to wait, read from what it really sends
 * (issue 44): the `retry-after-ms` and `retry-after` headers (seconds or an
 * HTTP date; OpenAI, Anthropic, most proxies), OpenAI's
 * `x-ratelimit-reset-requests` / `-tokens` ("1s", "6m0s", "20ms"),
 * Anthropic's `anthropic-ratelimit-*-reset` (an RFC 3339 time), and the
 * "Please try again in 20s" many servers put only in the error body.
 * Also: whether an error says the server is overloaded (529, 503) or that
 * the prompt does not fit the model's context, which no wait can fix.
 *
 * Pure: headers and body text in, milliseconds and a short description of
 * where they came from out (the call log says it: "body said try again in 20s").
 */

export interface BackoffSignal {
  /** how long to wait, in ms (never negative) */
  ms: number
  /** where it came from, for the call log: "retry-after header: 20" */
  source: string
}

/** Go-style durations ("6m0s", "1h2m3.5s", "20ms") and spelled-out ones ("20 seconds"). */
const DURATION_PART =
  /(\d+(?:\.\d+)?)\s*(ms|milliseconds?|msecs?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)(?![a-z])/gi

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

function unitMs(unit: string): number {
  const u = unit.toLowerCase()
  if (u.startsWith('ms') || u.startsWith('milli')) return UNIT_MS.ms!
  if (u.startsWith('s')) return UNIT_MS.s!
  if (u.startsWith('m')) return UNIT_MS.m!
  return UNIT_MS.h!
}

/** "6m0s" → 360000; "20ms" → 20; "2.5s" → 2500; "20 seconds" → 20000; a bare number is seconds. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim()
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1_000
  let total = 0
  let matched = ''
  for (const part of trimmed.matchAll(DURATION_PART)) {
    total += Number.parseFloat(part[1]!) * unitMs(part[2]!)
    matched += part[0]
  }
  // the whole text must be made of duration parts: "6m0s" yes, "in 6 months" no
  if (matched === '' || matched.replace(/\s/g, '') !== trimmed.replace(/\s/g, '')) return undefined
  return total
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v
  return out
}

/** A time in the future (HTTP date or RFC 3339) as ms from now. */
function untilDate(raw: string, now: number): number | undefined {
  const at = Date.parse(raw)
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined
}

/** `retry-after-ms`, then `retry-after` (seconds or an HTTP date). */
export function retryAfterHeader(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): BackoffSignal | undefined {
  const h = lowerKeys(headers)
  const rawMs = h['retry-after-ms']
  const ms = Number.parseFloat(rawMs ?? '')
  if (Number.isFinite(ms) && ms >= 0) return { ms, source: `retry-after-ms header: ${rawMs}` }
  const raw = h['retry-after']
  if (raw === undefined) return undefined
  const seconds = Number(raw.trim())
  if (raw.trim() !== '' && Number.isFinite(seconds) && seconds >= 0)
    return { ms: seconds * 1_000, source: `retry-after header: ${raw.trim()}` }
  const until = untilDate(raw, now)
  return until === undefined ? undefined : { ms: until, source: `retry-after header: ${raw}` }
}

/** The limits a reset header can name, in the order OpenAI and Anthropic list them. */
const LIMITS = ['requests', 'tokens', 'input-tokens', 'output-tokens'] as const

/**
 * OpenAI's x-ratelimit-reset-* (durations) and Anthropic's
 * anthropic-ratelimit-*-reset (times). Both name every limit on every
 * reply; the one spent (remaining 0) is the one to wait for. When none
 * says 0, the shortest wait: waiting too little costs one more 429, waiting
 * for the wrong limit (a daily one) can cost minutes for nothing.
 */
export function rateLimitResetHeaders(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): BackoffSignal | undefined {
  const h = lowerKeys(headers)
  const found: (BackoffSignal & { spent: boolean })[] = []
  for (const limit of LIMITS) {
    const openai = h[`x-ratelimit-reset-${limit}`]
    if (openai !== undefined) {
      const ms = parseDuration(openai)
      if (ms !== undefined)
        found.push({
          ms,
          source: `x-ratelimit-reset-${limit} header: ${openai}`,
          spent: h[`x-ratelimit-remaining-${limit}`]?.trim() === '0',
        })
    }
    const anthropic = h[`anthropic-ratelimit-${limit}-reset`]
    if (anthropic !== undefined) {
      const ms = untilDate(anthropic, now)
      if (ms !== undefined)
        found.push({
          ms,
          source: `anthropic-ratelimit-${limit}-reset header: ${anthropic}`,
          spent: h[`anthropic-ratelimit-${limit}-remaining`]?.trim() === '0',
        })
    }
  }
  const spent = found.filter((f) => f.spent)
  const pool = spent.length > 0 ? spent : found
  const best = pool.reduce<(typeof found)[number] | undefined>(
    (min, f) => (min === undefined || f.ms < min.ms ? f : min),
    undefined,
  )
  return best && { ms: best.ms, source: best.source }
}

/**
 * "Please try again in 20s" (OpenAI, Groq), "try again in 2.5s", "Please
 * retry after 20 seconds" (Azure), "retry in 20.5s" (Gemini), "retryDelay": "20s".
 */
const BODY_WAIT =
  /(?:try again in|retry (?:after|in)|retrydelay"?\s*:\s*")\s*((?:\d+(?:\.\d+)?\s*(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)(?![a-z])\s*)+)/i

export function bodyRetryHint(body: string | undefined): BackoffSignal | undefined {
  if (!body) return undefined
  const match = BODY_WAIT.exec(body)
  if (!match) return undefined
  const said = match[1]!.trim()
  const ms = parseDuration(said)
  return ms === undefined ? undefined : { ms, source: `body said try again in ${said}` }
}

/**
 * The provider's word on how long to wait, best first: retry-after headers
 * (meant for exactly this), the body's "try again in" (precise, per
 * request), then the limits' reset times.
 */
export function backoffSignal(
  headers: Record<string, string> | undefined,
  body: string | undefined,
  now = Date.now(),
): BackoffSignal | undefined {
  return (
    retryAfterHeader(headers, now) ?? bodyRetryHint(body) ?? rateLimitResetHeaders(headers, now)
  )
}

/**
 * The server is busy, not this peer over a limit: Anthropic's 529
 * overloaded_error, a 503 (a local server still loading its model says
 * this too). Waiting is the cure, as for a 429.
 */
export function isOverloaded(status: number | undefined, body: string | undefined): boolean {
  if (status === 529 || status === 503) return true
  return /overloaded_error|"overloaded"|server is overloaded/i.test(body ?? '')
}

/**
 * The prompt does not fit the model: OpenAI context_length_exceeded,
 * Anthropic "prompt is too long", Ollama and llama.cpp "exceeds the context",
 * OpenAI's 429 "Request too large ... tokens per min" (one request bigger
 * than the whole per-minute budget: no wait makes it fit).
 */
const CONTEXT_TOO_LONG =
  /context_length_exceeded|maximum context length|context length|context window|context size|prompt is too long|too many tokens|input is too long|request too large|string_above_max_length|exceeds the (?:available )?context/i

export function isContextTooLong(status: number | undefined, body: string | undefined): boolean {
  if (status === 413) return true
  if (status !== 400 && status !== 429 && status !== 422 && status !== 500) return false
  return CONTEXT_TOO_LONG.test(body ?? '')
}
