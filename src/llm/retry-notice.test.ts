/**
 * A wait is told as it starts, with its real cause (issue 56: a 503 was
 * called a rate limit): the real provider code against the mock LLM server
 * with the `overloaded` persona (500, 503 and, from Anthropic, 529), every
 * refusal the server sent matched with the one notice it caused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { LlmOtherError, LlmOverloadedError, LlmRateLimitError, toLlmError } from './errors'
import { createProvider } from './provider'
import { retryCause, retryText, waitSeconds, type LlmRetry } from './retry-notice'
import { runLlmTask } from './run-task'
import type { LlmTask, ModelConfig } from './types'

/** the persona's latencies (about 2 s) at a hundredth: the test waits on nothing real */
const TIME_SCALE = 0.01
/** distinct tasks: each meets an overload with a seeded chance of a third */
const GOALS = [
  'Plan a reading week',
  'Organise a street party',
  'Write a grant proposal for a library',
  'Move a small office to a new building',
  'Train for a first half marathon',
  'Learn enough Portuguese for a trip',
  'Set up a home recording studio',
  'Start a vegetable garden on a balcony',
  'Run a bake sale for the school',
  'Digitise a family photo archive',
]

let mock: MockLlmServer
beforeAll(async () => {
  mock = await createMockLlmServer({ persona: 'overloaded', timeScale: TIME_SCALE })
})
afterAll(async () => {
  await mock.close()
})

function scoreTask(goal: string): LlmTask {
  return {
    kind: 'score',
    path: [goal],
    subgoals: [
      { text: `Decide the scope of: ${goal}`, dependsOn: [] },
      { text: `Carry out: ${goal}`, dependsOn: [0] },
    ],
    rationale: 'Scope first.',
    depth: 1,
    maxDepth: 3,
  }
}

describe('what a retry notice says', () => {
  it('names the cause by the error, not by its kind: a 503 or 529 is an overload, a 500 a server error', () => {
    const api = (statusCode: number, responseBody = '') =>
      Object.assign(new Error(`HTTP ${statusCode}`), {
        name: 'AI_APICallError',
        statusCode,
        responseHeaders: {},
        responseBody,
      })
    const e429 = toLlmError(api(429), 'X')
    const e503 = toLlmError(api(503), 'X')
    const e529 = toLlmError(api(529), 'X')
    const e500 = toLlmError(api(500), 'X')
    expect([e429, e503, e529, e500].map((e) => [e.constructor, e.status])).toEqual([
      [LlmRateLimitError, 429],
      [LlmOverloadedError, 503],
      [LlmOverloadedError, 529],
      [LlmOtherError, 500],
    ])
    expect([e429, e503, e529, e500].map(retryCause)).toEqual([
      'rate-limit',
      'overloaded',
      'overloaded',
      'server-error',
    ])
  })

  it('says the wait as long as it is', () => {
    expect([14_000, 2_500, 250, 10_200, 60_000].map(waitSeconds)).toEqual([
      '14 s',
      '2.5 s',
      '0.3 s',
      '11 s',
      '60 s',
    ])
  })
})

/** Seeds tried until the persona has refused with every status (each round is checked whole). */
const MAX_SEEDS = 6

describe('waits against the overloaded persona, over the wire', () => {
  it('one notice for each refusal, as the wait starts, with its status and cause (OpenAI-compatible and Anthropic)', async () => {
    const refusedInAll = new Set<number>()
    for (let seed = 1; seed <= MAX_SEEDS && refusedInAll.size < 3; seed++) {
      mock.setBehaviour({ seed })
      mock.resetSeeds()
      for (const provider of ['openai-compatible', 'anthropic'] as const) {
        mock.requests.length = 0
        const model: ModelConfig = {
          provider,
          model: 'mock-model',
          apiKey: 'k',
          baseUrl: `${mock.url}/v1`,
        }
        const llm = createProvider(model)
        const happened: { retry?: LlmRetry; sleep?: number }[] = []
        for (const goal of GOALS) {
          const out = await runLlmTask(scoreTask(goal), llm, {
            backoffMs: 1_000,
            // the wait is recorded, not slept: its length is what the notice must say
            sleep: async (ms) => void happened.push({ sleep: ms }),
            onRetry: (retry) => happened.push({ retry }),
          })
          expect(out.ok).toBe(true)
        }
        const refused = mock.requests.filter((r) => r.status >= 500).map((r) => r.status)
        for (const status of refused) refusedInAll.add(status)
        const notices = happened.flatMap((h) => (h.retry ? [h.retry] : []))
        // one notice a refusal, in the order the server sent them, each with its status
        expect(
          notices.map((n) => n.status),
          `${provider}, seed ${seed}`,
        ).toEqual(refused)
        // each notice comes just before its wait, and says the wait's real length
        happened.forEach((h, i) => {
          if (h.retry) expect(happened[i + 1]?.sleep).toBe(h.retry.ms)
        })
        for (const notice of notices) {
          const text = retryText(notice)
          if (notice.status === 500)
            expect(text).toMatch(/^score: server error \(500\): .*; waiting/)
          else expect(text).toMatch(/^score: provider overloaded \((503|529)\): waiting \d/)
          expect(text).not.toMatch(/rate limit/)
        }
      }
    }
    // the persona refused with each kind of status: every kind of notice was checked
    expect([...refusedInAll].sort()).toEqual([500, 503, 529])
  })
})
