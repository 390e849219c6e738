/**
 * A check of LLM settings with one cheap call (a score of a two-subgoal
 * split, a few dozen tokens): the agent's start-up check, so a bad key, a
 * wrong model name or an unreachable server shows before the agent joins the
 * swarm, not at its first task minutes later; and the re-check of a model
 * known broken (runtime/model-recheck.ts). The offline model needs no check;
 * the caller says so plainly instead. (A tab checks from its page:
 * model-probe.ts.)
 */
import { isAbortError, LlmError, toLlmError } from './errors'
import { createProvider, type ProviderInit } from './provider'
import { buildPrompts } from './prompts'
import { SCHEMA_NAMES, wireJsonSchema } from './schemas'
import type { LlmTask, ModelConfig } from './types'
import type { ModelVerdict } from '../roles/types'

/**
 * How long the check may take. A hosted API answers in about a second, and a
 * server that is not there fails at once (connection refused); only a server
 * that took the request and is still busy makes the check wait. That is a
 * local server (Ollama, LM Studio, llama.cpp) loading its model on the first
 * request: minutes for a large model from a slow disk. 60 s gave up on those
 * and said the server may not be running; 10 minutes lets them load.
 */
export const MODEL_CHECK_TIMEOUT_MS = 10 * 60_000

/** How often a check still waiting says so: a person sees it is alive, not stuck. */
export const MODEL_CHECK_PROGRESS_MS = 30_000

/**
 * Output cap for the check. The reply is not used, only the fact that the
 * provider answered; a small cap keeps the check cheap even on a model that
 * would ramble.
 */
export const MODEL_CHECK_MAX_OUTPUT_TOKENS = 64

/** The task the check sends: the smallest real prompt the protocol has. */
const CHECK_TASK: LlmTask = {
  kind: 'score',
  path: ['Say hello'],
  subgoals: [
    { text: 'Say hello', dependsOn: [] },
    { text: 'Wave', dependsOn: [] },
  ],
  rationale: '',
  depth: 1,
  maxDepth: 3,
}

export type ModelCheck =
  | { status: 'offline'; label: string }
  | { status: 'ok'; label: string; ms: number }
  /** answered 429: the key works, the agent goes on and its calls back off */
  | { status: 'rate-limited'; label: string; message: string }

/** Thrown when the settings cannot work: wrong key, no server, unknown model. */
export class ModelCheckError extends Error {
  constructor(
    message: string,
    readonly kind: LlmError['kind'],
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'ModelCheckError'
  }
}

export interface CheckWaiting {
  /** called every `everyMs` while the provider has not answered, with the seconds waited */
  onWaiting?: (seconds: number) => void
  everyMs?: number
  /** ends the check early (it then rejects with the abort) */
  signal?: AbortSignal
}

export async function checkModel(
  config: ModelConfig,
  init: ProviderInit = {},
  timeoutMs = MODEL_CHECK_TIMEOUT_MS,
  waiting: CheckWaiting = {},
): Promise<ModelCheck> {
  const provider = createProvider(config, init)
  if (provider.offline) return { status: 'offline', label: provider.label }
  const started = Date.now()
  const { system, prompt } = buildPrompts(CHECK_TASK)
  const { onWaiting } = waiting
  const ticker = onWaiting
    ? setInterval(
        () => onWaiting(Math.round((Date.now() - started) / 1000)),
        waiting.everyMs ?? MODEL_CHECK_PROGRESS_MS,
      )
    : undefined
  try {
    await provider.generate({
      kind: CHECK_TASK.kind,
      system,
      prompt,
      jsonSchema: wireJsonSchema(CHECK_TASK.kind),
      schemaName: SCHEMA_NAMES[CHECK_TASK.kind],
      maxOutputTokens: MODEL_CHECK_MAX_OUTPUT_TOKENS,
      signal: waiting.signal
        ? AbortSignal.any([waiting.signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    })
    // any reply counts, even one that is not the JSON asked for: the model answered
    return { status: 'ok', label: provider.label, ms: Date.now() - started }
  } catch (err) {
    if (waiting.signal?.aborted) throw err
    if (isAbortError(err))
      throw new ModelCheckError(
        `${provider.label} did not answer within ${timeoutMs / 1000} s`,
        'unreachable',
        { cause: err },
      )
    const error = toLlmError(err, provider.label)
    if (error.kind === 'rate-limit')
      return { status: 'rate-limited', label: provider.label, message: error.message }
    if (error.kind === 'output')
      return { status: 'ok', label: provider.label, ms: Date.now() - started }
    throw new ModelCheckError(error.message, error.kind, { cause: err })
  } finally {
    clearInterval(ticker)
  }
}

/**
 * The check as the role is told it (roles/model-health.ts): works (a 429
 * says the key works), cannot work (a rejected key, an unknown model or
 * address, no answer), or null when the answer says nothing of the settings
 * (a server error). Rejects only when `signal` aborts it.
 */
export async function modelVerdict(
  config: ModelConfig,
  init: ProviderInit = {},
  signal?: AbortSignal,
): Promise<ModelVerdict | null> {
  try {
    await checkModel(config, init, MODEL_CHECK_TIMEOUT_MS, signal ? { signal } : {})
    return { ok: true }
  } catch (err) {
    if (!(err instanceof ModelCheckError)) throw err
    if (err.kind === 'auth' || err.kind === 'not-found' || err.kind === 'unreachable')
      return { ok: false, kind: err.kind, error: err.message }
    return null
  }
}
