/** Whether the orchestrator made the swarm's calls, the swarm's own extras told apart (issue 56). */
import { describe, expect, it } from 'vitest'
import type { LlmCall } from './calls'
import { compareCalls, comparisonLines } from './same-calls'

let clock = 0
function call(
  kind: LlmCall['kind'],
  goal: string,
  item: string | null = null,
  status: LlmCall['status'] = 'ok',
): LlmCall {
  clock += 10
  return { peer: 0, kind, goal, depth: 0, item, start: clock, end: clock + 5, status }
}

/** One goal split in two leaves: what the orchestrator does, and a swarm that did the same. */
function work(): LlmCall[] {
  return [
    call('decompose', 'G'),
    call('decompose', 'G'),
    call('score', 'G', 'split 1'),
    call('score', 'G', 'split 1'),
    call('score', 'G', 'split 2', 'aborted'),
    call('execute', 'G', 'leaf A'),
    call('execute', 'G', 'leaf B'),
    call('rollup', 'G'),
  ]
}

describe('the same calls on both sides', () => {
  it('says so when they are', () => {
    const comparison = compareCalls(work(), work())
    expect(comparison).toMatchObject({ identical: true, match: true, lateScores: 0 })
    expect(comparisonLines(comparison)).toEqual(['  the same calls on both sides'])
  })

  it("names the swarm's lost claims and late scores instead of calling them a mismatch", () => {
    const swarm = [
      ...work(),
      // a second executor claimed leaf A too, and dropped its call when the earlier claim arrived
      call('execute', 'G', 'leaf A', 'aborted'),
      call('rollup', 'G', null, 'aborted'),
      // a scorer began another score before the acceptance reached it
      call('score', 'G', 'split 2', 'aborted'),
    ]
    const comparison = compareCalls(swarm, work())
    expect(comparison).toMatchObject({
      identical: false,
      match: true,
      lostClaims: { execute: 1, rollup: 1, decompose: 0, score: 0 },
      lateScores: 1,
      differences: [],
    })
    expect(comparisonLines(comparison)).toEqual([
      "  the same calls on both sides; the swarm's own extra calls: 1 execute and 1 roll-up dropped on a lost claim, 1 score of splits the orchestrator had decided by then",
    ])
  })

  it('is a mismatch when the work differs: a leaf on one side only, another count of splits, more scores on the orchestrator', () => {
    const central = [
      ...work(),
      call('decompose', 'G'),
      call('execute', 'G', 'leaf C'),
      call('score', 'G', 'split 3'),
    ]
    // an aborted execute with no answered one for its leaf is no lost claim
    const swarm = [...work(), call('execute', 'G', 'leaf D', 'aborted')]
    const comparison = compareCalls(swarm, central)
    expect(comparison.match).toBe(false)
    expect(comparison.differences.sort()).toEqual([
      'decompose of “G”: swarm 2, orchestrator 3',
      'execute of “G › leaf C”: swarm 0, orchestrator 1',
      'execute of “G › leaf D”: swarm 1, orchestrator 0',
      'score of “G”: swarm 3, orchestrator 4',
    ])
    expect(comparisonLines(comparison)[0]).toBe(
      '  MISMATCH: the two sides did not make the same calls:',
    )
  })
})
