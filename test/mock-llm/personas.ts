/**
 * Personas: the habits of real models and providers, as named, documented
 * configurations of the mock (issue 44). A persona never changes WHAT the
 * mock answers (answers.ts still answers the swarm's real prompts
 * correctly); it changes how the answer is wrapped and delivered: latency,
 * prose, think tags, reasoning fields, cuts, and the provider's refusals.
 *
 * Chosen per server (`persona` in MockBehaviour, `--persona` on the CLI)
 * or per request, so one server serves several: the `x-mock-persona`
 * header, or a model id `persona:NAME` (what a headless agent or a tab can
 * set without code). The header wins, then the model id, then the server's.
 *
 * Seeded and deterministic given the seed: every draw hashes the seed, the
 * persona, the caller's key, the task and which attempt at it this is. The
 * one exception is `rate-limited`, a real sliding-window limiter: whether a
 * request is refused depends on when it arrives, as with a real provider.
 *
 * Time scale: latencies and rate-limit windows are given at real-world
 * scale and multiplied by `timeScale` (MockBehaviour; `--time-scale`), so a
 * CI test runs the same persona in a fraction of the time. Back-off hints
 * are computed from the scaled window, so what the mock says stays true.
 */
import { rngFor } from './rng'

export const PERSONA_NAMES = [
  'think',
  'chatty',
  'plain-text',
  'truncating',
  'rate-limited',
  'reasoning-field',
  'overloaded',
  'no-tools',
  'slow',
  'verbose',
] as const

export type PersonaName = (typeof PERSONA_NAMES)[number]

/** Lognormal reply latency at real-world scale: a long tail, as LLM calls have. */
export interface Latency {
  medianMs: number
  /** the log-space standard deviation: 0.5 is a modest tail, 1 a long one */
  sigma: number
  /** no reply takes longer (a client's own timeout would cut it anyway) */
  maxMs: number
}

export interface Persona {
  name: PersonaName
  /** what real models do this, in one line (docs/ARCHITECTURE.md lists them) */
  summary: string
  latency: Latency
  /** how the reply's text is wrapped (habits.ts) */
  wrap?: 'think' | 'chatty' | 'plain-text' | 'verbose'
  /** reasoning in its own field: `reasoning_content` (OpenAI-compatible), thinking blocks (Anthropic) */
  reasoningField?: boolean
  /** cuts replies at the "token limit": finish_reason length / stop_reason max_tokens */
  truncate?: { rate: number; keep: number; maxInARow: number }
  /** a provider's request limit per key: `requests` per `windowMs` (real-world scale) */
  rateLimit?: { requests: number; windowMs: number }
  /** 500/503/529 answers: `rate` of attempts, never more than `maxInARow` for one task */
  overload?: { rate: number; maxInARow: number }
  /** a server without tool calling: 400 on any request that offers tools */
  refusesTools?: boolean
}

/**
 * A local model on a laptop (Ollama, llama.cpp): a few seconds a reply, now
 * and then much longer (a long prompt, a model reloading).
 */
const LOCAL: Latency = { medianMs: 3_000, sigma: 0.6, maxMs: 60_000 }
/** A hosted API's short structured replies: about two seconds, a modest tail. */
const HOSTED: Latency = { medianMs: 2_000, sigma: 0.5, maxMs: 60_000 }
/**
 * Hosted models at their slowest (MISSION: "10–60 s a call"): median 6 s,
 * sigma 1 puts the 90th percentile near 22 s and the 99th near 60 s.
 */
const SLOW: Latency = { medianMs: 6_000, sigma: 1, maxMs: 120_000 }

export const PERSONAS: Record<PersonaName, Persona> = {
  think: {
    name: 'think',
    summary:
      'a <think> block that drafts the JSON (a different, wrong draft) before the answer (DeepSeek-R1, Qwen3 on Ollama/llama.cpp)',
    latency: LOCAL,
    wrap: 'think',
  },
  chatty: {
    name: 'chatty',
    summary:
      'prose around a ```json fence whose JSON has a trailing comma or a // line (Llama, Mistral)',
    latency: LOCAL,
    wrap: 'chatty',
  },
  'plain-text': {
    name: 'plain-text',
    summary:
      'execute and roll-up deliverables as plain Markdown, without the {"output": …} wrapper',
    latency: LOCAL,
    wrap: 'plain-text',
  },
  truncating: {
    name: 'truncating',
    summary:
      'half the replies cut at the token limit, mid-JSON (finish_reason "length", stop_reason "max_tokens")',
    latency: LOCAL,
    // a cut is independent of wrapping: the same task is not cut twice in a row
    truncate: { rate: 0.5, keep: 0.6, maxInARow: 1 },
  },
  'rate-limited': {
    name: 'rate-limited',
    summary:
      'a provider allowing 3 requests per 10 s per key: 429 with the wait in the body ("Please try again in 2s"), retry-after, retry-after-ms or x-ratelimit-reset-requests',
    latency: HOSTED,
    rateLimit: { requests: 3, windowMs: 10_000 },
  },
  'reasoning-field': {
    name: 'reasoning-field',
    summary:
      'reasoning (with a draft JSON) in its own field: reasoning_content in OpenAI-compatible replies and chunks, thinking blocks in Anthropic replies',
    latency: LOCAL,
    reasoningField: true,
  },
  overloaded: {
    name: 'overloaded',
    summary:
      'a third of requests answered 500, 503 or (Anthropic) 529 overloaded; never more than twice in a row for one task',
    latency: HOSTED,
    overload: { rate: 1 / 3, maxInARow: 2 },
  },
  'no-tools': {
    name: 'no-tools',
    summary:
      'a server without tool calling: 400 "does not support tools" on any request with tools',
    latency: LOCAL,
    refusesTools: true,
  },
  slow: {
    name: 'slow',
    summary:
      'long-tailed latency: lognormal, median 6 s, 90th percentile about 22 s (hosted models at their slowest)',
    latency: SLOW,
  },
  verbose: {
    name: 'verbose',
    summary:
      'over the limits on a first attempt: 7 subgoals, over-long rationale, notes and reasons (it complies when told why)',
    latency: LOCAL,
    wrap: 'verbose',
  },
}

export function isPersonaName(name: string): name is PersonaName {
  return (PERSONA_NAMES as readonly string[]).includes(name)
}

/** The model-id form that selects a persona per request: `persona:think`. */
export const PERSONA_MODEL_PREFIX = 'persona:'
/** The header that selects a persona per request (it wins over the model id). */
export const PERSONA_HEADER = 'x-mock-persona'

/**
 * The persona a request asked for: header, then model id, then the
 * server's default. An unknown name in a request is an error the caller
 * answers with a 400, so a typo is not silently served without habits.
 */
export function personaFor(
  header: string | undefined,
  model: string,
  fallback: PersonaName | undefined,
): { persona: Persona | undefined } | { unknown: string } {
  const fromModel = model.startsWith(PERSONA_MODEL_PREFIX)
    ? model.slice(PERSONA_MODEL_PREFIX.length)
    : undefined
  const name = header ?? fromModel ?? fallback
  if (name === undefined) return { persona: undefined }
  return isPersonaName(name) ? { persona: PERSONAS[name] } : { unknown: name }
}

/** A number in [0, 1) from the seed and keys: the persona's only source of chance. */
export function draw(seed: number, ...keys: string[]): number {
  // mulberry32 over the hash: the bare hash of similar keys is too regular for a tail
  return rngFor(String(seed), ...keys).next()
}

/** Clamp for the normal draw: hashes are never exactly 0, but guard the log anyway. */
const MIN_UNIFORM = 1e-9

/** A lognormal latency (Box–Muller over two seeded uniforms), scaled and capped. */
export function sampleLatency(
  latency: Latency,
  timeScale: number,
  seed: number,
  ...keys: string[]
): number {
  const rng = rngFor(String(seed), 'latency', ...keys)
  const u1 = Math.max(MIN_UNIFORM, rng.next())
  const u2 = rng.next()
  const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
  const ms = Math.min(latency.maxMs, latency.medianMs * Math.exp(latency.sigma * normal))
  return Math.round(ms * timeScale)
}

/**
 * What a persona remembers across requests: attempts per task (for the
 * "never more than n in a row" caps) and, per key, when its requests were
 * let through (the rate limiter's sliding window).
 */
export class PersonaState {
  private readonly attempts = new Map<string, number>()
  private readonly streaks = new Map<string, number>()
  private readonly admitted = new Map<string, number[]>()
  /** 429s sent so far: picks each refusal's back-off signal in turn */
  refusals = 0

  /** Which attempt at `task` (by this key) this request is: 0, 1, 2, … */
  attempt(key: string): number {
    const n = this.attempts.get(key) ?? 0
    this.attempts.set(key, n + 1)
    return n
  }

  /**
   * A seeded chance of a mishap (overload, cut) for this attempt, but never
   * more than `maxInARow` for one task in a row: a transient fault passes.
   */
  mishap(kind: string, key: string, chance: boolean, maxInARow: number): boolean {
    const streakKey = `${kind}\u241f${key}`
    const streak = this.streaks.get(streakKey) ?? 0
    const hit = chance && streak < maxInARow
    this.streaks.set(streakKey, hit ? streak + 1 : 0)
    return hit
  }

  /**
   * The sliding-window limiter: admits the request (returns 0) or says how
   * many ms until the oldest admitted request leaves the window.
   */
  admit(key: string, requests: number, windowMs: number, now: number): number {
    const times = (this.admitted.get(key) ?? []).filter((t) => now - t < windowMs)
    if (times.length < requests) {
      times.push(now)
      this.admitted.set(key, times)
      return 0
    }
    this.admitted.set(key, times)
    return Math.max(1, times[0]! + windowMs - now)
  }
}
