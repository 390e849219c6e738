import { describe, expect, it } from 'vitest'
import type { LlmCallReport } from './call-report'
import { LlmAuthError, LlmUnreachableError } from './errors'
import type { GenerateResult, LlmProvider } from './provider'
import { runLlmTask } from './run-task'
import type { LlmTask } from './types'

// runLlmTask's onCall hook: what the call inspector is told about a call.
const task: LlmTask = {
  kind: 'score',
  path: ['Plan a party'],
  subgoals: [
    { text: 'Book a venue', dependsOn: [] },
    { text: 'Send the invitations', dependsOn: [0] },
  ],
  rationale: '',
  depth: 1,
  maxDepth: 3,
}

/** A score's judgements of the task's two subgoals. */
const JUDGED = [
  { atomic: true, capability: 'can_write_text' },
  { atomic: false, capability: 'can_query_api' },
]

/** Replies in order: a value (as JSON text), plain text, or an error thrown. */
function provider(steps: (unknown | string | Error)[]): LlmProvider {
  return {
    id: 'openai',
    label: 'Fake',
    model: 'fake-1',
    offline: false,
    toolSupport: () => ({ code: false, search: false }),
    async generate(): Promise<GenerateResult> {
      const step = steps.shift()
      if (step instanceof Error) throw step
      const text = typeof step === 'string' ? step : JSON.stringify(step)
      return {
        json:
          typeof step === 'string'
            ? { ok: false, error: 'no JSON object found in the reply' }
            : { ok: true, value: step },
        text,
        inputTokens: 100,
        outputTokens: 10,
        model: 'fake-1-0001',
      }
    },
  }
}

async function reported(
  steps: (unknown | string | Error)[],
  maxAttempts = 3,
): Promise<LlmCallReport[]> {
  const reports: LlmCallReport[] = []
  await runLlmTask(task, provider(steps), {
    backoffMs: 0,
    maxAttempts,
    onCall: (r) => reports.push(r),
  })
  return reports
}

describe('runLlmTask onCall', () => {
  it('reports each attempt: the prompt sent, the raw reply, and the error or the parsed output', async () => {
    const [call, ...more] = await reported([
      'I would rate this highly.',
      new LlmUnreachableError('connection refused'),
      { score: 0.7, notes: 'good', judgements: JUDGED },
    ])
    expect(more).toEqual([])
    expect(call).toMatchObject({
      kind: 'score',
      provider: 'openai',
      model: 'fake-1-0001',
      ok: true,
      inputTokens: 200,
      outputTokens: 20,
    })
    expect(call!.system).toMatch(/\S/)
    const [first, second, third] = call!.attempts
    expect(first).toMatchObject({
      reply: 'I would rate this highly.',
      error: 'no JSON object found in the reply',
    })
    expect(first!.output).toBeUndefined()
    expect(second).toMatchObject({
      error: 'connection refused',
      errorKind: 'unreachable',
      inputTokens: 0,
    })
    expect(second!.reply).toBeUndefined()
    // the retry after a bad reply carries the correction; the model saw it in the prompt
    expect(second!.prompt).toContain('no JSON object found in the reply')
    expect(second!.prompt.startsWith(first!.prompt)).toBe(true)
    expect(third).toMatchObject({
      output: { score: 0.7, notes: 'good', judgements: JUDGED },
      reply: JSON.stringify({ score: 0.7, notes: 'good', judgements: JUDGED }),
    })
    expect(call!.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it('reports a failed call with its final error', async () => {
    const [call] = await reported([new LlmAuthError('invalid key')])
    expect(call).toMatchObject({ ok: false, errorKind: 'auth', error: 'invalid key' })
    expect(call!.attempts).toHaveLength(1)
  })

  it('reports nothing for a call aborted on purpose', async () => {
    const controller = new AbortController()
    controller.abort()
    const reports: LlmCallReport[] = []
    await expect(
      runLlmTask(task, provider([{ score: 0.5, notes: '', judgements: JUDGED }]), {
        signal: controller.signal,
        onCall: (r) => reports.push(r),
      }),
    ).rejects.toThrow()
    expect(reports).toEqual([])
  })
})
