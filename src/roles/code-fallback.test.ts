import { describe, expect, it } from 'vitest'
import { nodeId, taskId } from '../protocol/ids'
import type { Capability } from '../protocol/capabilities'
import { PlanState } from '../plan/state'
import { derivePlan } from '../plan/derive'
import { projectTree } from '../plan/tree'
import { acceptedSplit, allAtomic, peer as peerId } from '../plan/split.test-support'
import { claimAs } from './executor'
import { createPeer, step } from './index'
import { testConfig, T0 } from './leaf.test-support'

describe('claimAs: a code leaf nobody can run is written, not run (issue 44, no-tools)', () => {
  it('takes a leaf under its own capability when it offers it', () => {
    expect(claimAs('can_run_code', ['can_run_code'], ['can_run_code'], false)).toBe('can_run_code')
    expect(claimAs('can_query_api', ['can_query_api'], [], false)).toBe('can_query_api')
  })

  it('a writer whose model cannot run code takes a code leaf only while no live executor runs code', () => {
    const text: Capability[] = ['can_write_text']
    expect(claimAs('can_run_code', text, text, true)).toBe('can_write_text')
    expect(claimAs('can_run_code', text, [...text, 'can_run_code'], true)).toBe(null)
  })

  it('not when its person left code off: the leaf waits, flagged, for the one-click fix', () => {
    expect(claimAs('can_run_code', ['can_write_text'], ['can_write_text'], false)).toBe(null)
  })

  it('never a live-data leaf (an answer from knowledge needs consent), nor without text', () => {
    expect(claimAs('can_query_api', ['can_write_text'], ['can_write_text'], true)).toBe(null)
    expect(claimAs('can_run_code', ['can_query_api'], ['can_query_api'], true)).toBe(null)
  })
})

/** One open code leaf; a lone executor with `capabilities` ticks alone with it. */
function claimsBy(capabilities: Capability[], writesUnrunCode = true) {
  const code = allAtomic(1, 'can_run_code')
  const split = acceptedSplit(1, 1, [code, code])
  const leaf = nodeId(split.goal.id, split.proposal.id, 0, split.proposal.subgoals[0]!.text, true)
  const plan = new PlanState()
  plan.merge(split.plan)
  const config = { ...testConfig(peerId('Writer'), 'executor', capabilities), writesUnrunCode }
  const peer = createPeer(config, T0, plan)
  const published = []
  for (let i = 1; i <= 20; i++)
    published.push(...step(peer, [{ type: 'tick' }], T0 + i * 250).publish)
  return {
    task: taskId('execute', leaf),
    claims: published.filter((r) => r.kind === 'claim'),
    split,
  }
}

describe('an executor that cannot run code, alone in the room', () => {
  it('claims the code leaf when its model cannot run code (so the plan does not wait for ever)', () => {
    const { task, claims } = claimsBy(['can_write_text'])
    expect(claims.map((c) => (c.kind === 'claim' ? c.task : null))).toEqual([task])
  })

  it('claims nothing when its person left code off', () => {
    expect(claimsBy(['can_write_text'], false).claims).toEqual([])
  })

  it('an executor that can do neither claims nothing', () => {
    expect(claimsBy(['can_query_api']).claims).toEqual([])
  })

  it('the tree still flags the leaf: nobody offers code (claimed, it is written, not run)', () => {
    const { split } = claimsBy([])
    const slot = projectTree(derivePlan(split.plan), split.plan, undefined, {
      capabilities: ['can_write_text'],
    }).goals[0]!.slots[0]!
    expect(slot.capabilityGap).toEqual({ capability: 'can_run_code' })
  })
})
