/**
 * The server's side of personas (personas.ts): for each request, which
 * persona serves it, whether it is refused (tools, rate limit, overload),
 * how long it takes, and how the answer is wrapped (habits.ts). One desk
 * per server; each persona keeps its own state, so one server can serve a
 * swarm per persona side by side.
 */
import { hashString } from './rng'
import type { LlmTask } from '../../src/llm/types'
import {
  applyHabits,
  overloadReply,
  rateLimitReply,
  RATE_LIMIT_SIGNALS,
  toolsRefusal,
  withHabits,
  type ErrorReply,
  type HabitOutput,
  type RateLimitSignal,
} from './habits'
import { draw, PersonaState, sampleLatency, type Persona, type PersonaName } from './personas'
import { completion, type Api, type ParsedRequest } from './wire'

/** What the desk decided about one request, before it is answered. */
export interface PersonaTurn {
  persona: Persona
  /** which attempt at this task (by this key) the request is: 0 for the first */
  attempt: number
  /** the task's identity across retries and peers: the caller's key and the task */
  taskKey: string
  latencyMs: number
  /** an answer in place of the model's (429, 5xx) */
  refusal?: ErrorReply
  /** a 429's wait, in ms, and how its signal says it */
  waitMs?: number
  signal?: RateLimitSignal
  /** the text will be cut at the token limit */
  cut: boolean
  slip: 'comma' | 'comment' | 'both'
}

const SLIPS = ['comma', 'comment', 'both'] as const

export class PersonaDesk {
  private readonly states = new Map<PersonaName, PersonaState>()

  constructor(private readonly settings: () => { seed: number; timeScale: number }) {}

  reset(): void {
    this.states.clear()
  }

  private state(name: PersonaName): PersonaState {
    let state = this.states.get(name)
    if (!state) {
      state = new PersonaState()
      this.states.set(name, state)
    }
    return state
  }

  /** A server without tool calling refuses at once, before any latency. */
  refuseTools(
    persona: Persona,
    api: Api,
    model: string,
    offersTools: boolean,
  ): ErrorReply | undefined {
    return persona.refusesTools && offersTools ? toolsRefusal(api, model) : undefined
  }

  /**
   * Decides a request: its latency, and whether the provider refuses it
   * (rate limit at arrival, overload), and the seeded habits of its reply.
   */
  turn(
    persona: Persona,
    api: Api,
    key: string,
    task: LlmTask | undefined,
    system: string,
  ): PersonaTurn {
    const { seed, timeScale } = this.settings()
    const state = this.state(persona.name)
    // a retry's prompt carries feedback; the task parsed from it is the same task
    const taskId = String(hashString(`${system}\n${JSON.stringify(task ?? null)}`))
    const taskKey = `${key}\u241f${taskId}`
    const attempt = state.attempt(taskKey)
    // the draws follow the task and how often anyone asked it, not the key: a
    // bench's swarm (a key per peer) and orchestrator (one key) meet the same latencies
    const asking = state.attempt(`\u241f${taskId}`)
    const keys = [persona.name, taskId, String(asking)]
    const turn: PersonaTurn = {
      persona,
      attempt,
      taskKey,
      latencyMs: sampleLatency(persona.latency, timeScale, seed, ...keys),
      cut: false,
      slip: SLIPS[Math.floor(draw(seed, 'slip', ...keys) * SLIPS.length)]!,
    }
    const now = Date.now()
    if (persona.rateLimit) {
      const limit = {
        requests: persona.rateLimit.requests,
        windowMs: Math.max(1, persona.rateLimit.windowMs * timeScale),
      }
      const waitMs = state.admit(key, limit.requests, limit.windowMs, now)
      if (waitMs > 0) {
        const signal = RATE_LIMIT_SIGNALS[state.refusals++ % RATE_LIMIT_SIGNALS.length]!
        const refusal = rateLimitReply(api, signal, waitMs, limit, now)
        return { ...turn, latencyMs: 0, refusal, waitMs, signal }
      }
    }
    if (persona.overload) {
      const { rate, maxInARow } = persona.overload
      const hit = state.mishap(
        'overload',
        taskKey,
        draw(seed, 'overload', ...keys) < rate,
        maxInARow,
      )
      if (hit) return { ...turn, refusal: overloadReply(api, draw(seed, 'status', ...keys)) }
    }
    if (persona.truncate) {
      const { rate, maxInARow } = persona.truncate
      turn.cut = state.mishap('cut', taskKey, draw(seed, 'cut', ...keys) < rate, maxInARow)
    }
    return turn
  }
}

/**
 * The completion for a correct `value`, as the persona writes it: its
 * wrapping, its reasoning field, its cut. Without a persona, as before.
 */
export function personaCompletion(
  parsed: ParsedRequest,
  value: unknown,
  turn: PersonaTurn | undefined,
  task: LlmTask | undefined,
  retry: boolean,
): { body: Record<string, unknown>; habits?: HabitOutput } {
  if (!turn) return { body: completion(parsed, value) }
  const habits = applyHabits({
    persona: turn.persona,
    kind: task?.kind,
    value,
    form: parsed.form,
    retry,
    cut: turn.cut,
    slip: turn.slip,
  })
  const request = habits.text !== undefined ? { ...parsed, form: 'text' as const } : parsed
  const body = completion(request, habits.value, habits.text)
  return { body: withHabits(parsed.api, body, habits), habits }
}
