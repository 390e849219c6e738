/**
 * The mock LLM's personas (test/mock-llm/personas.ts: real models' habits)
 * as the simulator sees them: not the wrapping itself, which the LLM layer
 * reads (src/llm), but what each habit costs a call in time, and what it
 * leaves a swarm able to do.
 *
 * A call's time is a lognormal latency (the persona's median and tail), plus
 * for each retry the habit forces another latency (a reply cut at the token
 * limit, asked again) or a wait (a 429 waited out as the provider said; an
 * overload's back-off). Retry rates are those the personas swarm test
 * (test/personas.swarm.node.test.ts) measured with the LLM layer of issue 44:
 * wrapping habits cost no retry; about half the calls of a truncating model
 * are asked again; a third of a rate-limited or overloaded provider's
 * requests are refused. `no-tools` leaves executors without code: the
 * runtime withdraws can_run_code once the server refuses tools, and text
 * writers take the code leaves as code written, not run (roles/executor.ts).
 */
import type { Capability } from '../protocol/capabilities'
import type { Rng } from './rng'

/** The personas' names, as the mock LLM has them (a test checks the two lists agree). */
export const SIM_PERSONA_NAMES = [
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

export type SimPersonaName = (typeof SIM_PERSONA_NAMES)[number]

export interface PersonaTiming {
  /** lognormal latency of one request: median, log-space sigma, cap (ms) */
  medianMs: number
  sigma: number
  maxMs: number
  /** chance a request must be made again */
  retryRate: number
  /** at most this many retries in a row (the mock's cap on a task's mishaps) */
  maxRetries: number
  /** 'call': the retry is another request (a cut); a number: a wait up to that many ms first */
  retryCost: 'call' | number
}

export interface SimPersona {
  timing: PersonaTiming
  /** executors lose these capabilities (what the runtime withdraws) */
  withheld?: Capability[]
}

/** Local models (Ollama, llama.cpp): test/mock-llm/personas.ts LOCAL. */
const LOCAL = { medianMs: 3_000, sigma: 0.6, maxMs: 60_000 }
/** A hosted API's structured replies: HOSTED there. */
const HOSTED = { medianMs: 2_000, sigma: 0.5, maxMs: 60_000 }
const NO_RETRY = { retryRate: 0, maxRetries: 0, retryCost: 'call' as const }

/**
 * A 429's wait: up to the provider's 10 s window (the time until its oldest
 * request leaves it). An overload's: the client's own back-off, 1 s then 2 s.
 */
const RATE_LIMIT_WAIT_MS = 10_000
const OVERLOAD_BACKOFF_MS = 2_000

export const SIM_PERSONAS: Record<SimPersonaName, SimPersona> = {
  think: { timing: { ...LOCAL, ...NO_RETRY } },
  chatty: { timing: { ...LOCAL, ...NO_RETRY } },
  'plain-text': { timing: { ...LOCAL, ...NO_RETRY } },
  'reasoning-field': { timing: { ...LOCAL, ...NO_RETRY } },
  verbose: { timing: { ...LOCAL, ...NO_RETRY } },
  truncating: { timing: { ...LOCAL, retryRate: 0.5, maxRetries: 1, retryCost: 'call' } },
  'rate-limited': {
    timing: { ...HOSTED, retryRate: 1 / 3, maxRetries: 3, retryCost: RATE_LIMIT_WAIT_MS },
  },
  overloaded: {
    timing: { ...HOSTED, retryRate: 1 / 3, maxRetries: 2, retryCost: OVERLOAD_BACKOFF_MS },
  },
  'no-tools': { timing: { ...LOCAL, ...NO_RETRY }, withheld: ['can_run_code'] },
  // hosted models at their slowest: median 6 s, the 90th percentile near 22 s
  slow: { timing: { medianMs: 6_000, sigma: 1, maxMs: 120_000, ...NO_RETRY } },
}

export function isSimPersona(name: string): name is SimPersonaName {
  return (SIM_PERSONA_NAMES as readonly string[]).includes(name)
}

/** Floor for the normal draw's uniform: log(0) is -Infinity. */
const MIN_UNIFORM = 1e-9

function lognormal(timing: PersonaTiming, rng: Rng): number {
  const u1 = Math.max(MIN_UNIFORM, rng.next())
  const u2 = rng.next()
  const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
  return Math.min(timing.maxMs, timing.medianMs * Math.exp(timing.sigma * normal))
}

/** One call's time under a persona, its retries included (ms, whole). */
export function personaCallMs(timing: PersonaTiming, rng: Rng): number {
  let ms = lognormal(timing, rng)
  // each retry is another request, after a wait when the provider asked for one
  for (let retry = 0; retry < timing.maxRetries && rng.next() < timing.retryRate; retry++)
    ms += (timing.retryCost === 'call' ? 0 : rng.next() * timing.retryCost) + lognormal(timing, rng)
  return Math.round(ms)
}

/** The swarm's options under a persona: its timing, and executors without what it withholds. */
export function withPersona<T extends { executorCapabilities: Capability[][] }>(
  options: T,
  name: SimPersonaName,
): T & { persona: SimPersonaName; writesUnrunCode: boolean } {
  const withheld = SIM_PERSONAS[name].withheld ?? []
  return {
    ...options,
    persona: name,
    // code was wanted and the model cannot run it: code leaves are written, not run
    writesUnrunCode: withheld.includes('can_run_code'),
    executorCapabilities: options.executorCapabilities.map((caps) =>
      caps.filter((cap) => !withheld.includes(cap)),
    ),
  }
}
