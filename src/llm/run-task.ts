/**
 * runLlmTask: the one entry point role logic uses. Task in, LlmOutcome out.
 *
 * Prompts are built, the provider is called, the reply is read leniently
 * (reply-reader.ts: reasoning set aside, JSON slips repaired, a plain-text
 * deliverable taken as one, values a little over a limit trimmed) and
 * judged with the task's zod schema. A reply that fails is retried with the
 * error fed back in the prompt, so the model can fix exactly that; a reply
 * cut at the token limit is retried with more room (maxOutputTokens
 * doubled); transport failures (unreachable, 5xx) are retried with
 * exponential backoff. A rate limit or overload (429, 529, 503) is waited
 * out as the provider asks (wait-policy.ts) without spending an attempt.
 * When attempts run out the outcome is { ok: false } with a short message
 * and an error kind: the caller publishes a failure notice rather than a
 * guess. It never throws, except when the signal aborts (the caller asked
 * to stop; there is no outcome). Every leniency and wait is a note in the
 * call log (LlmCallAttempt.notes).
 */
import {
  isAbortError,
  LlmBadOutputError,
  type LlmError,
  LlmOtherError,
  LlmRateLimitError,
  toLlmError,
} from './errors'
import type { LlmCallAttempt, LlmCallReport } from './call-report'
import { buildPrompts, withRetryFeedback } from './prompts'
import type { LlmProvider } from './provider'
import { MAX_MODEL_LABEL } from '../protocol/limits'
import type { Step } from '../protocol/steps'
import type { TaskTools } from './tools'
import type { ToolCallReport } from './toolbox'
import { toolPlan, withSteps } from './tool-plan'
import { abortableSleep } from './sleep'
import { readReply } from './reply-reader'
import { SCHEMA_NAMES, wireJsonSchema } from './schemas'
import { rateLimitWait } from './wait-policy'
import { retryCause, type LlmRetry } from './retry-notice'
import type { LlmOutcome, LlmTask, LlmTaskKind, LlmUsage } from './types'

/** The protocol's rule: three attempts in all, then publish a failure. */
export const DEFAULT_MAX_ATTEMPTS = 3

/**
 * First backoff; doubles each retry (1 s, 2 s). Long enough for a blip in a
 * local server or a provider's 5xx to clear, short enough that a bad-output
 * retry (which needs no wait at all, really) does not stall the plan.
 */
export const DEFAULT_BACKOFF_MS = 1_000

/** Backoff multiplier per attempt: the usual exponential doubling. */
const BACKOFF_FACTOR = 2

/**
 * Output token caps per task kind. They bound the cost of one runaway
 * reply, with headroom for reasoning models (gpt-5, o-series) whose hidden
 * reasoning tokens count against the same cap. Execute and roll-up allow a
 * full 60 000-character page (about 15 000 tokens).
 */
export const MAX_OUTPUT_TOKENS: { [K in LlmTaskKind]: number } = {
  decompose: 4_000,
  score: 2_000,
  execute: 16_000,
  rollup: 20_000,
}

/** A reply cut at the token limit is asked again with this many times the room. */
export const OUTPUT_TOKENS_GROWTH = 2

/**
 * The most room a cut reply is given, as a multiple of the kind's cap: two
 * doublings. It bounds what one call can spend; a model that still runs out
 * (a reasoning model thinking at length) fails with the cut reported.
 */
export const MAX_OUTPUT_TOKENS_GROWTH = 4

/** A 400 that blames the output cap: the model allows fewer output tokens than we asked for. */
const OUTPUT_CAP_REJECTED =
  /max_tokens|max_completion_tokens|max_output_tokens|maxOutputTokens|num_predict|output tokens/i

export { abortableSleep } from './sleep'

export interface RunTaskOptions {
  signal?: AbortSignal
  /** attempts in all, first included (default 3) */
  maxAttempts?: number
  /** first retry delay in ms, doubled each retry (default 1000; 0 in tests) */
  backoffMs?: number
  /** varies the offline model's answer between peers (use the peer id) */
  seed?: string | number
  /** injectable for tests; must reject when the signal aborts */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** execute tasks: the tools this executor's person allows (default: none) */
  tools?: TaskTools
  /**
   * told what the call did (prompts, replies, errors, tokens, time) once it
   * ends with an outcome; not called when the signal aborts it
   */
  onCall?: (report: LlmCallReport) => void
  /**
   * execute and roll-up calls: told each piece of the reply's text as it
   * arrives (the provider streams), with the attempt it belongs to (1, 2, …:
   * a retry starts a new text). The reply is still validated whole, at the end.
   */
  onText?: (delta: string, attempt: number) => void
  /**
   * told as each wait before another try starts (a rate limit, an overload,
   * a server error, a rejected reply): its cause and real length
   * (retry-notice.ts), so that it is said when it happens, not when the call ends
   */
  onRetry?: (retry: LlmRetry) => void
}

export { KNOWLEDGE_NOTE, toolPlan } from './tool-plan'

/** The calls whose text is worth watching as it is written: the deliverables (STREAMED_KINDS). */
export const STREAMED_KINDS: readonly LlmTaskKind[] = ['execute', 'rollup']

function retryDelay(attempt: number, base: number): number {
  return base * BACKOFF_FACTOR ** (attempt - 1)
}

function finalMessage(error: LlmError, attempts: number): string {
  if (error.kind === 'output') {
    return `the model's reply failed validation ${attempts} time${attempts === 1 ? '' : 's'}: ${error.message}`
  }
  return error.message
}

export async function runLlmTask<T extends LlmTask>(
  task: T,
  provider: LlmProvider,
  options: RunTaskOptions = {},
): Promise<LlmOutcome<T['kind']>> {
  const kind = task.kind as T['kind']
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)
  const backoffMs = Math.max(0, options.backoffMs ?? DEFAULT_BACKOFF_MS)
  const sleep = options.sleep ?? abortableSleep
  const { signal } = options
  const seed = options.seed === undefined ? undefined : String(options.seed)
  const { system, prompt } = buildPrompts(task)
  const usage: LlmUsage = {
    provider: provider.id,
    model: provider.model.slice(0, MAX_MODEL_LABEL),
    inputTokens: 0,
    outputTokens: 0,
    offline: provider.offline,
  }

  const plan = toolPlan(task, options.tools, provider.toolSupport())
  const spend = { webSearches: 0 }
  const tools = plan.request || plan.knowledge ? { tools: spend } : {}
  const startedAt = Date.now()
  const log: LlmCallAttempt[] = []
  /** what the tool loop of the latest attempt ran, for the call log */
  let steps: Step[] = []
  /** Tells options.onRetry that a wait of `ms` starts now, before attempt `next`. */
  const retrying = (error: LlmError, ms: number, next: number, why?: string): void =>
    options.onRetry?.({
      kind,
      cause: retryCause(error),
      ...(error.status === undefined ? {} : { status: error.status }),
      ms,
      ...(why === undefined ? {} : { why }),
      attempt: next,
      maxAttempts,
      error: error.message,
    })
  /** every toolbox call of every attempt, for the call log */
  const toolCalls: ToolCallReport[] = []
  /** the system prompt each attempt's request carried, as the provider sent it (by attempt) */
  const sentSystems: (string | undefined)[] = []
  /** Tells options.onCall what the call did, and returns its outcome. */
  const report = (outcome: LlmOutcome<T['kind']>): LlmOutcome<T['kind']> => {
    // the system prompt as the provider got it: the first request's; an attempt that sent another says so
    const sentSystem = sentSystems.find((s) => s !== undefined) ?? system
    options.onCall?.({
      kind,
      provider: usage.provider,
      model: usage.model,
      offline: usage.offline,
      system: sentSystem,
      attempts: log.map((attempt, i) => {
        const own = sentSystems[i]
        return own === undefined || own === sentSystem ? attempt : { ...attempt, system: own }
      }),
      ok: outcome.ok,
      ...(outcome.ok ? {} : { error: outcome.error, errorKind: outcome.errorKind }),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      startedAt,
      latencyMs: Date.now() - startedAt,
      ...(steps.length > 0 ? { steps } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    })
    return outcome
  }

  if (plan.missing !== undefined) {
    // nothing was asked: the executor gives the leaf back, another that has the tool may take it
    return report({
      ok: false,
      kind,
      error: plan.missing,
      errorKind: 'other',
      usage,
      attempts: 0,
    })
  }

  let feedback: string | undefined
  let lastError: LlmError = new LlmBadOutputError('no attempt was made')
  /** attempts at the task: replies and failures, never a wait for a rate limit */
  let attempts = 0
  /** rate-limit waits so far, and their ms (wait-policy.ts bounds both) */
  let waits = 0
  let waitedMs = 0
  const baseOutputTokens = MAX_OUTPUT_TOKENS[kind]
  let maxOutputTokens = baseOutputTokens
  /** the model refused a raised cap: a cut reply is not given more room again */
  let capFound = false
  while (attempts < maxAttempts) {
    signal?.throwIfAborted()
    attempts++
    const sent = feedback === undefined ? prompt : withRetryFeedback(prompt, feedback)
    const sentAt = Date.now()
    /** this request's number in the call log (1, 2, …): waits included, so each request's text is its own */
    const request = log.length + 1
    const onText = options.onText
    const stream =
      onText && STREAMED_KINDS.includes(kind)
        ? { onText: (delta: string) => onText(delta, request) }
        : {}
    const cap = maxOutputTokens
    try {
      const result = await provider.generate({
        kind,
        system,
        prompt: sent,
        jsonSchema: wireJsonSchema(kind, task),
        schemaName: SCHEMA_NAMES[kind],
        maxOutputTokens: cap,
        signal,
        task,
        seed,
        ...(plan.request ? { tools: plan.request } : {}),
        ...stream,
        onSend: (sentSystem) => {
          sentSystems[request - 1] = sentSystem
        },
      })
      usage.inputTokens += result.inputTokens
      usage.outputTokens += result.outputTokens
      usage.model = (result.model || provider.model).slice(0, MAX_MODEL_LABEL)
      spend.webSearches += result.webSearches ?? 0
      steps = result.steps ?? []
      toolCalls.push(...(result.toolCalls ?? []))
      if (result.stopped !== undefined) {
        // The budget ended the tool loop: no answer, and no retry (it would
        // spend more). A cap is this peer's own limit, like a provider's rate
        // limit: peers do not count it as an attempt at the task.
        const error = `stopped before the model answered: ${result.stopped}`
        log.push({
          prompt: sent,
          reply: result.text,
          error,
          inputTokens: result.inputTokens,
          outputTokens: result.outputTokens,
          latencyMs: Date.now() - sentAt,
        })
        return report({
          ok: false,
          kind,
          error,
          errorKind: 'rate-limit',
          usage,
          attempts,
          ...tools,
          budgetStopped: true,
        })
      }
      const reading = readReply(kind, result, task)
      const notes = [...reading.notes]
      if (!reading.ok && reading.cut) {
        const more = Math.min(
          cap * OUTPUT_TOKENS_GROWTH,
          baseOutputTokens * MAX_OUTPUT_TOKENS_GROWTH,
        )
        if (more > cap && !capFound) {
          maxOutputTokens = more
          notes.push(`reply cut at the token limit; retrying with maxOutputTokens ${more}`)
        } else {
          notes.push(`reply cut at the token limit; ${cap} is the most this call gives`)
        }
      }
      log.push({
        prompt: sent,
        reply: result.text,
        ...(reading.ok ? { output: reading.value } : { error: reading.error }),
        ...(notes.length > 0 ? { notes } : {}),
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
        latencyMs: Date.now() - sentAt,
      })
      if (reading.ok) {
        const value = withSteps(kind, reading.value, plan, result)
        return report({ ok: true, kind, value, usage, attempts, ...tools })
      }
      feedback = reading.error
      lastError = new LlmBadOutputError(reading.error)
    } catch (error) {
      if (isAbortError(error) || signal?.aborted) throw error
      lastError = toLlmError(error, provider.label)
      const failed = {
        prompt: sent,
        error: lastError.message,
        errorKind: lastError.kind,
        inputTokens: 0,
        outputTokens: 0,
        latencyMs: Date.now() - sentAt,
      }
      // Keep any earlier feedback below: the model never saw this request, the old correction still applies.
      if (lastError instanceof LlmRateLimitError) {
        const decision = rateLimitWait(lastError, waits, waitedMs, backoffMs)
        log.push({ ...failed, notes: [decision.note] })
        if (!decision.wait) break
        // the provider's pace, not the task's failure: no attempt spent
        attempts--
        waits++
        waitedMs += decision.ms
        retrying(lastError, decision.ms, attempts + 1, decision.why)
        await sleep(decision.ms, signal)
        continue
      }
      if (
        cap > baseOutputTokens &&
        lastError instanceof LlmOtherError &&
        OUTPUT_CAP_REJECTED.test(lastError.message)
      ) {
        // The model allows fewer output tokens than the raised cap: back to the last one it took, no attempt spent.
        maxOutputTokens = Math.max(baseOutputTokens, cap / OUTPUT_TOKENS_GROWTH)
        capFound = true
        log.push({
          ...failed,
          notes: [`the model refused maxOutputTokens ${cap}; back to ${maxOutputTokens}`],
        })
        attempts--
        continue
      }
      log.push(failed)
      if (!lastError.retryable) break
    }
    if (attempts < maxAttempts) {
      const ms = retryDelay(attempts, backoffMs)
      retrying(lastError, ms, attempts + 1)
      await sleep(ms, signal)
    }
  }
  return report({
    ok: false,
    kind,
    error: finalMessage(lastError, attempts),
    errorKind: lastError.kind,
    usage,
    attempts,
    ...tools,
  })
}
