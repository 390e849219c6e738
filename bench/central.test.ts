/** Smoke test of the central orchestrator's flow, with an instant fake LLM. */
import { describe, expect, it } from 'vitest'
import type { LlmOutcome, LlmTask } from '../src/llm/types'
import { parseArgs, procsFor } from './args'
import { bestByMean, hasQuorum, protocolBudget, runCentral, type LlmRunner } from './central'
import { perGoalBudget } from './analysis'
import { roomOf } from './sides'
import type { LlmCall } from './calls'
import { Pool } from './pool'
import { realisticScore } from '../test/mock-llm/answers'
import { roleList, splitRoles, tabPeers } from './split'

const usage = { provider: 'fake', model: 'fake', inputTokens: 0, outputTokens: 0, offline: true }

/** Splits every goal into `branching` parts; composite until the cap; scores `score`. */
function fakeLlm(branching: number, score = 0.8) {
  const calls: LlmTask[] = []
  const llm: LlmRunner = async (task) => {
    calls.push(task)
    await new Promise((resolve) => setTimeout(resolve, 1))
    const ok = <V>(value: V) =>
      ({ ok: true, kind: task.kind, value, usage, attempts: 1 }) as LlmOutcome
    switch (task.kind) {
      case 'decompose':
        return ok({
          subgoals: Array.from({ length: branching }, (_, i) => ({
            text: `${task.path.at(-1)}/${i}`,
            dependsOn: i ? [i - 1] : [],
          })),
          rationale: 'r',
        })
      case 'score':
        // every subgoal judged composite until the cap
        return ok({
          score,
          notes: 'n',
          judgements: task.subgoals.map(() => ({
            atomic: task.depth >= task.maxDepth,
            capability: 'can_write_text',
          })),
        })
      case 'execute':
        return ok({
          output: `did ${task.task} after ${task.dependencies.map((d) => d.text).join('+')}`,
        })
      case 'rollup':
        return ok({ output: task.parts.map((p) => p.output).join(' | ') })
    }
  }
  return { llm, calls }
}

const count = (calls: LlmTask[], kind: LlmTask['kind']) =>
  calls.filter((c) => c.kind === kind).length

describe('central orchestrator', () => {
  it('makes the calls of the protocol flow for a 2 × depth 2 tree and rolls up in dependency order', async () => {
    const { llm, calls } = fakeLlm(2)
    const [result] = await runCentral({
      roots: [{ text: 'G', maxDepth: 2 }],
      pools: { decomposer: 2, scorer: 3, executor: 2 },
      budget: protocolBudget(2, 2),
      llm,
    })
    expect(result!.ok).toBe(true)
    // goals: G, G/0, G/1 → 3 goals × 2 proposals; scores stop at the first quorum and
    // classify the split (protocol version 7: no classify call)
    expect(count(calls, 'decompose')).toBe(6)
    expect(count(calls, 'execute')).toBe(4)
    expect(count(calls, 'rollup')).toBe(3)
    expect(count(calls, 'score')).toBeGreaterThanOrEqual(6)
    expect(count(calls, 'score')).toBeLessThanOrEqual(12)
    // leaf 1 ran after leaf 0, with its output
    const second = calls.find((c) => c.kind === 'execute' && c.task === 'G/0/1')
    expect(second?.kind === 'execute' && second.dependencies.map((d) => d.text)).toEqual(['G/0/0'])
    expect(result!.output).toContain('did G/1/1 after G/1/0')
  })

  it("asks the swarm's very prompts: its decompose and score tasks name the room the swarm's named (issue 56)", async () => {
    for (const room of [undefined, ['can_write_text', 'can_run_code'] as const]) {
      const { llm, calls } = fakeLlm(2)
      const budget = { ...protocolBudget(2, 2), ...(room ? { room } : {}) }
      await runCentral({
        roots: [{ text: 'G', maxDepth: 2 }],
        pools: { decomposer: 2, scorer: 3, executor: 2 },
        budget,
        llm,
      })
      const asked = calls.filter((c) => c.kind === 'decompose' || c.kind === 'score')
      expect(asked.length).toBeGreaterThan(0)
      for (const task of asked)
        expect('roomCapabilities' in task ? task.roomCapabilities : undefined).toEqual(
          room ? [...room] : undefined,
        )
    }
    // the room the swarm's calls named, read back from them
    const said = (room?: LlmCall['room']): LlmCall => ({
      peer: 0,
      kind: 'score',
      goal: 'G',
      depth: 0,
      item: 'r',
      start: 0,
      end: 1,
      status: 'ok',
      ...(room ? { room } : {}),
    })
    expect(roomOf([said(), said(['can_write_text']), said(['can_write_text']), said([])])).toEqual([
      'can_write_text',
    ])
    expect(roomOf([said()])).toBeUndefined()
  })

  it('falls back to the best mean when no proposal reaches quorum, and fails with one vote', async () => {
    const low = fakeLlm(2, 0.3)
    const [ok] = await runCentral({
      roots: [{ text: 'G', maxDepth: 1 }],
      pools: { decomposer: 1, scorer: 1, executor: 1 },
      budget: protocolBudget(1, 2),
      llm: low.llm,
    })
    expect(ok!.ok).toBe(true)
    const one = fakeLlm(2)
    const [failed] = await runCentral({
      roots: [{ text: 'G', maxDepth: 1 }],
      pools: { decomposer: 1, scorer: 1, executor: 1 },
      budget: protocolBudget(1, 1),
      llm: one.llm,
    })
    expect(failed!.ok).toBe(false)
    expect(count(one.calls, 'execute')).toBe(0)
  })

  it('as a plain planner makes one decomposition per goal, judged by one score call', async () => {
    const { llm, calls } = fakeLlm(2)
    const [result] = await runCentral({
      roots: [{ text: 'G', maxDepth: 2 }],
      pools: { decomposer: 2, scorer: 3, executor: 2 },
      budget: protocolBudget(3, 3),
      llm,
      plain: true,
    })
    expect(result!.ok).toBe(true)
    expect(count(calls, 'decompose')).toBe(3)
    expect(count(calls, 'score')).toBe(3)
    expect(count(calls, 'execute')).toBe(4)
    expect(count(calls, 'rollup')).toBe(3)
  })

  it('realistic mock scores spread around the threshold, disagree, and repeat', () => {
    const task = (rationale: string) => ({
      kind: 'score' as const,
      path: ['G'],
      subgoals: [{ text: 'a', dependsOn: [] }],
      rationale,
      depth: 1,
      maxDepth: 3,
    })
    const scores = Array.from({ length: 60 }, (_, i) => realisticScore(task(`p${i % 20}`), `s${i}`))
    expect(Math.min(...scores)).toBeLessThan(0.6)
    expect(Math.max(...scores)).toBeGreaterThanOrEqual(0.6)
    expect(realisticScore(task('p1'), 'mock-0')).toBe(realisticScore(task('p1'), 'mock-0'))
    const same = [0, 1, 2].map((n) => realisticScore(task('p1'), `mock-${n}`))
    expect(new Set(same).size).toBeGreaterThan(1)
  })

  it('acceptance and score sharing follow the rules', () => {
    expect(hasQuorum([0.6, 0.7])).toBe(true)
    expect(hasQuorum([0.59, 0.9])).toBe(false)
    expect(bestByMean([{ votes: [0.5] }, { votes: [0.4, 0.5] }, { votes: [0.3, 0.3] }])).toEqual({
      votes: [0.4, 0.5],
    })
  })

  it("gives the orchestrator the swarm's score calls per proposal, most first", () => {
    const call = (kind: LlmCall['kind'], goal: string, item: string | null): LlmCall => ({
      peer: 0,
      kind,
      goal,
      depth: 0,
      item,
      start: 0,
      end: 1,
      status: 'ok',
    })
    // the swarm put both votes on one of G's three splits: the orchestrator must
    // not spread them one to a split (no quorum, the goal would fail)
    const budget = perGoalBudget([
      ...['a', 'b', 'c'].map(() => call('decompose', 'G', null)),
      call('score', 'G', 'draft b'),
      call('score', 'G', 'draft b'),
      call('score', 'H', 'draft a'),
      call('score', 'H', 'draft c'),
      call('score', 'H', 'draft c'),
    ])
    expect(budget.get('G')).toEqual({ proposals: 3, scores: [2] })
    expect(budget.get('H')).toEqual({ proposals: 0, scores: [2, 1] })
    expect(protocolBudget(3, 2).scores({ key: 'G', depth: 0 })).toEqual([2, 2, 2])
  })

  it('pools never run more than their size', async () => {
    const pool = new Pool(2)
    let running = 0
    let peak = 0
    await Promise.all(
      Array.from({ length: 7 }, () =>
        pool.run(async () => {
          running++
          peak = Math.max(peak, running)
          await new Promise((resolve) => setTimeout(resolve, 2))
          running--
        }),
      ),
    )
    expect(peak).toBe(2)
    expect(pool.peak).toBe(2)
  })
})

describe('bench options', () => {
  it('splits roles as documented', () => {
    expect(splitRoles(11)).toEqual({ decomposer: 3, scorer: 3, executor: 4, observer: 1 })
    expect(splitRoles(4)).toEqual({ decomposer: 1, scorer: 2, executor: 1, observer: 0 })
    expect(splitRoles(64)).toEqual({ decomposer: 16, scorer: 16, executor: 31, observer: 1 })
    expect(() => splitRoles(3)).toThrow()
  })

  it('parses flags', () => {
    const options = parseArgs(['--peers', '8', '--latency-ms=200', '--sweep', '--json-only'])
    expect(options).toMatchObject({
      peers: 8,
      latencyMs: 200,
      sweep: true,
      jsonOnly: true,
      goals: 1,
      depth: 3,
    })
    expect(() => parseArgs(['--branching', '9'])).toThrow(/2 to 6/)
    expect(() => parseArgs(['--nope'])).toThrow(/unknown option/)
    expect(parseArgs(['--scores', 'realistic'])).toMatchObject({ scores: 'realistic' })
    expect(() => parseArgs(['--scores', 'low'])).toThrow(/fixed or realistic/)
    expect(procsFor(64, undefined)).toBe(2)
    expect(procsFor(4, undefined)).toBe(0)
    expect(procsFor(11, 0)).toBe(0)
    expect(parseArgs(['--peers', '64', '--tabs', '8'])).toMatchObject({ peers: 64, tabs: 8 })
    expect(() => parseArgs(['--tabs', '-1'])).toThrow(/--tabs/)
  })

  it('spreads tabs over the workers, never the submitter or the watched observer', () => {
    const roles = roleList(splitRoles(72))
    const tabs = tabPeers(72, 8)
    expect(tabs).toHaveLength(8)
    expect(new Set(tabs).size).toBe(8)
    expect(tabs.every((i) => i >= 1 && i <= 70)).toBe(true)
    // a mix of roles, as the swarm's split has them
    expect(new Set(tabs.map((i) => roles[i]))).toEqual(
      new Set(['decomposer', 'scorer', 'executor']),
    )
    expect(tabPeers(10, 0)).toEqual([])
    expect(() => tabPeers(10, 9)).toThrow(/at most 8/)
  })
})
