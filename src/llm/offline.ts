/**
 * The built-in offline model: no network, no key. It is a placeholder that
 * shows how the swarm works (splits, scores, claims, code runs, roll-ups)
 * with the goal's own words, and says on every answer that it does not
 * understand the goal and a real model gives real content. It is labelled
 * (provider 'offline', model 'offline-v1', usage.offline) and never passes
 * for a real LLM. The logic lives in offline-model/.
 *
 * A pure function of (task, seed): nothing is kept between calls, so no
 * goal's text can reach another's. Peers pass their own seed (peer id), so
 * decomposers propose different splits and scorers differ slightly.
 */
import { codeAnswer, offlineCodeModel } from './offline-model/code-model'
import { offlineDecompose } from './offline-model/decompose'
import { offlineExecute } from './offline-model/execute'
import { offlineRollup } from './offline-model/rollup'
import { offlineScore } from './offline-model/score'
import { offlineToolModel, withToolCues } from './offline-tools'
import { parsePrompts } from './prompts'
import type { GenerateRequest, GenerateResult, LlmProvider, ProviderInit } from './provider'
import { abortableSleep } from './sleep'
import { estimateTokens } from './tokens'
import { runToolLoop } from './tool-loop'
import type { ToolSupport } from './tools'
import type { LlmOutputs, LlmTask } from './types'

export const OFFLINE_PROVIDER = 'offline'
export const OFFLINE_MODEL = 'offline-v1'
export const OFFLINE_LABEL = 'Offline model (built-in, not a real LLM)'

/** Simulated latency per call: a person watches proposals, scores and claims arrive one by one. */
export const DEFAULT_OFFLINE_LATENCY_MS = 400

/** A streamed reply comes in this many pieces, one per slice of the latency, as a real model's does. */
export const OFFLINE_STREAM_PIECES = 8

/** The offline model's answer to a task: what a perfect LLM reply would parse to. */
export function offlineAnswer<T extends LlmTask>(task: T, seed = ''): LlmOutputs[T['kind']] {
  const answer = (): LlmOutputs[LlmTask['kind']] => {
    switch (task.kind) {
      case 'decompose':
        return offlineDecompose(task, seed)
      case 'score':
        return offlineScore(task, seed)
      case 'execute':
        return task.capability === 'can_run_code'
          ? { output: codeAnswer(task, []) }
          : offlineExecute(task)
      case 'rollup':
        return offlineRollup(task)
    }
  }
  // issue 57: a goal that cues a tool of the room's gets a subgoal that needs it (offline-tools.ts)
  return withToolCues(task, answer() as LlmOutputs[T['kind']])
}

class OfflineProvider implements LlmProvider {
  readonly id = OFFLINE_PROVIDER
  readonly label = OFFLINE_LABEL
  readonly model = OFFLINE_MODEL
  readonly offline = true

  constructor(private readonly latencyMs: number) {}

  /** It calls tools (its own program in the sandbox, through the tool loop); it cannot search. */
  toolSupport(): ToolSupport {
    return { code: true, search: false }
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    request.signal?.throwIfAborted()
    // Prefer the structured task; parse the prompts only when a caller sent prompts alone.
    const task = request.task ?? parsePrompts(request.system, request.prompt)
    const toolbox = request.tools?.toolbox
    if (task?.kind === 'execute' && task.tool !== undefined && toolbox) {
      // issue 57: it calls its person's tools through the same loop (offline-tools.ts)
      await abortableSleep(this.latencyMs, request.signal)
      return runToolLoop({
        model: offlineToolModel(task, request.seed ?? '', toolbox, OFFLINE_MODEL),
        modelId: OFFLINE_MODEL,
        request,
        tools: { toolbox, search: false },
      })
    }
    if (task?.kind === 'execute' && task.capability === 'can_run_code' && request.tools?.sandbox) {
      await abortableSleep(this.latencyMs, request.signal)
      return runToolLoop({
        model: offlineCodeModel(task, OFFLINE_MODEL),
        modelId: OFFLINE_MODEL,
        request,
        tools: { sandbox: request.tools.sandbox, search: false },
      })
    }
    const value = task ? offlineAnswer(task, request.seed ?? '') : undefined
    const text = value === undefined ? '' : JSON.stringify(value)
    if (request.onText) await this.stream(text, request.onText, request.signal)
    else await abortableSleep(this.latencyMs, request.signal)
    return {
      json:
        value === undefined
          ? { ok: false, error: 'the offline model did not recognise the task' }
          : { ok: true, value },
      text,
      inputTokens: estimateTokens(request.system + request.prompt),
      outputTokens: estimateTokens(text),
      model: OFFLINE_MODEL,
    }
  }

  /** Hands the text out in OFFLINE_STREAM_PIECES pieces, one per slice of the latency. */
  private async stream(text: string, onText: (delta: string) => void, signal?: AbortSignal) {
    const size = Math.max(1, Math.ceil(text.length / OFFLINE_STREAM_PIECES))
    for (let at = 0; at < text.length; at += size) {
      await abortableSleep(this.latencyMs / OFFLINE_STREAM_PIECES, signal)
      onText(text.slice(at, at + size))
    }
  }
}

export function createOfflineProvider(init: Pick<ProviderInit, 'latencyMs'> = {}): LlmProvider {
  return new OfflineProvider(Math.max(0, init.latencyMs ?? DEFAULT_OFFLINE_LATENCY_MS))
}
