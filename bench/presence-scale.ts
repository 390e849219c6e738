/**
 * Presence traffic as rooms grow: N peers running the real role core
 * (src/roles: createPeer/step, the beat rules of presence.ts) in virtual
 * time, every beat carried over the real link topology (hopMatrix: the ring
 * of src/net/topology.ts, GOSSIP_HOP_MS a hop), in an idle room: what a peer
 * hears just to know who is there. Work adds beats in proportion to the work
 * in flight (holders renew leases every 5 s), not to the room's size.
 *
 *   npx tsx bench/presence-scale.ts [sizes, default 8,16,32,64,1000]
 *
 * Prints, per size: beats heard per peer per minute during the join wave
 * (the first minute, everyone starting within a second) and in steady state
 * (a window after the keepalive gaps have settled), with what the old rule
 * (every peer beats every 5 s) gives: 12 × (N − 1).
 */
import { createPeer, step, type PeerInput, type PeerState } from '../src/roles/index'
import { keepaliveMs } from '../src/protocol/rules'
import { EventQueue } from '../src/sim/queue'
import { createRng } from '../src/sim/rng'
import { fakePeerId } from '../src/sim/swarm'
import { roleList, splitRoles } from './split'
import { hopMatrix } from './virtual'

/** one gossip hop */
const GOSSIP_HOP_MS = 10
/** timers of a background tab fire about once a second; a foreground tab's every 250 ms */
const TICK_MS = 1_000
const JOIN_WINDOW_MS = 60_000
const STEADY_FROM_MS = 120_000

type Event = { type: 'deliver'; to: number; input: PeerInput } | { type: 'tick'; peer: number }

export function presenceRates(n: number): { join: number; steady: number; windowS: number } {
  const rng = createRng(n)
  const roles = roleList(splitRoles(n))
  const peers: PeerState[] = roles.map((role, i) =>
    createPeer(
      {
        peerId: fakePeerId(rng),
        room: 'virtual',
        role,
        capabilities: role === 'executor' ? ['can_write_text'] : [],
        capacity: 4,
        model: 'openai-compatible/mock',
        offline: false,
      },
      Math.floor((i * 1_000) / n),
    ),
  )
  const hops = hopMatrix(peers.map((p) => p.config.peerId))
  // steady state: once the join wave is over (the newcomer answers of the
  // largest room end within a minute), for four keepalive gaps; one gap for a
  // room too big to simulate that long. Peers that started within the same
  // second beat in phase, so a window counts whole rounds of beats.
  const gap = keepaliveMs(n)
  const from = STEADY_FROM_MS
  const until = from + (n <= 100 ? 4 : 1) * gap
  const heardJoin = peers.map(() => 0)
  const heardSteady = peers.map(() => 0)
  const queue = new EventQueue<Event>()
  peers.forEach((peer, i) => queue.push(peer.startedAt, { type: 'tick', peer: i }))
  for (let event = queue.pop(); event; event = queue.pop()) {
    const now = event.at
    if (now > until) break
    const e = event.value
    const index = e.type === 'tick' ? e.peer : e.to
    if (e.type === 'deliver') {
      if (now < JOIN_WINDOW_MS) heardJoin[index]!++
      if (now >= from) heardSteady[index]!++
    } else {
      queue.push(now + TICK_MS, e)
    }
    const fx = step(peers[index]!, e.type === 'tick' ? { type: 'tick' } : e.input, now)
    for (const record of fx.publish) {
      if (record.kind !== 'presence') continue
      const input: PeerInput = { type: 'presence', presence: record }
      peers.forEach((_, to) => {
        if (to !== index)
          queue.push(now + hops[index]![to]! * GOSSIP_HOP_MS, { type: 'deliver', to, input })
      })
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  return {
    join: median(heardJoin) / (JOIN_WINDOW_MS / 60_000),
    steady: Math.round((median(heardSteady) / ((until - from) / 60_000)) * 10) / 10,
    windowS: (until - from) / 1_000,
  }
}

const sizes = (process.argv[2] ?? '8,16,32,64,1000').split(',').map(Number)
for (const n of sizes) {
  const started = Date.now()
  const r = presenceRates(n)
  console.log(
    `${n} peers: beats heard per peer per minute: join wave ${r.join}, steady ${r.steady} ` +
      `(window ${r.windowS} s; old rule ${12 * (n - 1)}) [${((Date.now() - started) / 1000).toFixed(1)} s]`,
  )
}
