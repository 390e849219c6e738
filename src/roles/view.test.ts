import { describe, expect, it } from 'vitest'
import type { Presence } from '../protocol/records'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { testBeat } from './beat.test-support'
import { createView, eligiblePeers, hearPresence } from './view'

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
