import { describe, expect, it } from 'vitest'
import type { Presence } from '../protocol/records'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { testBeat } from './beat.test-support'
import { createView, eligiblePeers, hearPresence, offeredCapabilities } from './view'

const rng = createRng('view-test')
const T0 = 1_700_000_000_000

function beat(from: string, load: number, holding: string[]): Presence {
  return testBeat({
    from,
    role: 'executor',
    capabilities: ['can_write_text'],
    holding,
    load,
    boot: T0,
  })
}

describe('eligiblePeers: who has a free slot', () => {
  const me = fakePeerId(rng)
  const [full, idle, busy] = [fakePeerId(rng), fakePeerId(rng), fakePeerId(rng)]
  const view = createView()
  // `full` beat with four tasks and has finished two since; `idle` beat with
  // nothing and has claimed four since; `busy` beat with one call that is no
  // task and two tasks, and holds three now
  hearPresence(view, beat(full, 4, ['t1', 't2', 't3', 't4']), T0)
  hearPresence(view, beat(idle, 0, []), T0)
  hearPresence(view, beat(busy, 3, ['t5', 't6']), T0)
  const self = { peerId: me, eligible: true }
  const held = new Map([
    [full, 2],
    [idle, 4],
    [busy, 3],
  ])

  it('goes by the beats alone without the plan', () => {
    const peers = eligiblePeers(view, self, { role: 'executor', free: true }, T0 + 100)
    expect(new Set(peers)).toEqual(new Set([me, idle, busy]))
  })

  it('counts the tasks a peer holds by the plan, not by its last beat', () => {
    const peers = eligiblePeers(view, self, { role: 'executor', free: true, held }, T0 + 100)
    expect(new Set(peers)).toEqual(new Set([me, full]))
  })

  it('ignores load when a free slot is not asked for', () => {
    const peers = eligiblePeers(view, self, { role: 'executor', held }, T0 + 100)
    expect(new Set(peers)).toEqual(new Set([me, full, idle, busy]))
  })
})

describe('offeredCapabilities: what the room can do (issue 43)', () => {
  it("is the union of live executors' capabilities, its own if it is one, and nobody else's", () => {
    const view = createView()
    const [coder, searcher, scorer, gone] = [1, 2, 3, 4].map(() => fakePeerId(rng))
    const at = (
      from: string,
      role: Presence['role'],
      capabilities: Presence['capabilities'],
      now: number,
    ) =>
      hearPresence(
        view,
        testBeat({ from, role, capabilities, boot: T0, healthy: from !== searcher }),
        now,
      )
    at(coder!, 'executor', ['can_run_code'], T0)
    // not healthy (a paused budget): it still offers what it offers
    at(searcher!, 'executor', ['can_query_api'], T0)
    at(scorer!, 'scorer', ['can_write_text'], T0)
    at(gone!, 'executor', ['can_write_text'], T0 - 60_000)
    const scorerSelf = { role: 'scorer' as const, capabilities: [] }
    expect(offeredCapabilities(view, scorerSelf, T0 + 1_000)).toEqual([
      'can_run_code',
      'can_query_api',
    ])
    const executorSelf = { role: 'executor' as const, capabilities: ['can_write_text' as const] }
    expect(offeredCapabilities(view, executorSelf, T0 + 1_000)).toEqual([
      'can_run_code',
      'can_query_api',
      'can_write_text',
    ])
    // nobody heard for three promised gaps: nothing offered
    expect(offeredCapabilities(view, scorerSelf, T0 + 60_000)).toEqual([])
  })
})
