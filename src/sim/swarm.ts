/**
 * A seeded swarm simulator in the style of Yjs's test connector: peers of all
 * four roles in one process, in virtual time, over a bus that reorders,
 * duplicates, delays and drops messages, crashes and restarts peers, skews
 * their clocks and fires their timers late. Every random choice comes from
 * one seed, so a failing run is replayed exactly by its seed.
 */
import type { Capability } from '../protocol/capabilities'
import { newGoal, type PlanRecord, type Role, type WireRecord } from '../protocol/records'
import { PlanState } from '../plan/state'
import { createPeer, step, type Effects, type PeerInput, type PeerState } from '../roles/index'
import { simAnswer } from './model'
import { personaCallMs, SIM_PERSONAS } from './personas'
import type { SwarmOptions } from './options'
import { EventQueue } from './queue'
import { oracleSync, realSyncFor, reconcileSync } from './sync'
import { createRng, type Rng } from './rng'
import { SYNC_CHECK_PEERS } from '../protocol/rules'
import { SimWire, simKey } from './wire'

export { DEFAULT_SWARM, type SwarmMakeup, type SwarmOptions } from './options'
import type { KeyObject } from 'node:crypto'

export interface SimPeer {
  index: number
  peerId: string
  role: Role
  capabilities: Capability[]
  skew: number
  state: PeerState | null
  /** what survives a crash: the plan as persisted (IndexedDB in a tab) */
  persisted: PlanState
  incarnation: number
  /** counters summed over incarnations */
  executed: string[]
  wasted: number
  llmCalls: number
}

type SimEvent =
  | { type: 'deliver'; to: number; inputs: PeerInput[] }
  | { type: 'tick'; peer: number; incarnation: number }
  | { type: 'llm'; peer: number; incarnation: number; requestId: string; input: PeerInput }
  | { type: 'crash'; peer: number }
  | { type: 'restart'; peer: number }
  | { type: 'sync'; peer: number; incarnation: number }
  | { type: 'submit'; peer: number; text: string }
  /** split the swarm: peer index → side; null heals */
  | { type: 'partition'; sides: number[] | null }
  /** the peer's tab is frozen (or its laptop sleeps) until thawed: it runs nothing, its links drop */
  | { type: 'freeze'; peer: number }
  | { type: 'thaw'; peer: number }

/**
 * Virtual time 0 on the peers' clocks: 2023-11-14, so that a clock skewed
 * minutes back still gives the positive times records require.
 */
export const SIM_CLOCK_ORIGIN = 1_700_000_000_000

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

export function fakePeerId(rng: Rng): string {
  let id = '12D3KooW'
  for (let i = 0; i < 44; i++) id += BASE58[rng.int(0, BASE58.length - 1)]
  return id
}

export class Swarm {
  readonly peers: SimPeer[] = []
  readonly queue = new EventQueue<SimEvent>()
  readonly rng: Rng
  private readonly llmRng: Rng
  private readonly aborted = new Set<string>()
  /** peers whose records reach nobody (by gossip or sync) until unmuted */
  private readonly muted = new Set<number>()
  /**
   * frozen peers, with the timers and LLM answers that came due meanwhile:
   * they run at the thaw (what was sent to the peer is lost, as on links
   * that dropped)
   */
  private readonly frozen = new Map<number, SimEvent[]>()
  /** while partitioned: each peer's side; peers on different sides reach each other by no means */
  private sides: number[] | null = null
  private healed = false
  /** the real codec, when options.codec */
  readonly wire: SimWire | null = null
  now = 0
  /** virtual time the last root goal settled in some live peer's view */
  settledAt: number | null = null
  /** while false, nothing is lost or slowed: used to let the swarm settle before checking */
  lossy = true

  constructor(readonly options: SwarmOptions) {
    this.rng = createRng(options.seed)
    this.llmRng = this.rng.fork('llm')
    const roles: Role[] = [
      ...Array<Role>(options.makeup.decomposers).fill('decomposer'),
      ...Array<Role>(options.makeup.scorers).fill('scorer'),
      ...Array<Role>(options.makeup.executors).fill('executor'),
      ...Array<Role>(options.makeup.observers).fill('observer'),
    ]
    let executorIndex = 0
    const keys = new Map<string, KeyObject>()
    roles.forEach((role, index) => {
      const capabilities =
        role === 'executor'
          ? options.executorCapabilities[executorIndex++ % options.executorCapabilities.length]!
          : []
      const randomSkew = this.rng.chance(0.5)
        ? Math.round((this.rng.next() * 2 - 1) * options.maxSkewMs)
        : 0
      const skew = options.skews?.[index] ?? randomSkew
      let peerId: string
      if (options.codec) {
        const key = simKey(this.rng)
        keys.set(key.peerId, key.key)
        peerId = key.peerId
      } else {
        peerId = fakePeerId(this.rng)
      }
      this.peers.push({
        index,
        peerId,
        role,
        capabilities,
        skew,
        state: null,
        persisted: new PlanState(),
        incarnation: 0,
        executed: [],
        wasted: 0,
        llmCalls: 0,
      })
    })
    if (options.codec) this.wire = new SimWire(keys, 'sim')
    for (const peer of this.peers) this.boot(peer)
  }

  /** End any partition and thaw every frozen peer (before checking convergence). */
  heal(): void {
    this.sides = null
    this.healed = true
    for (const index of [...this.frozen.keys()]) this.thaw(this.peers[index]!)
  }

  freeze(peer: SimPeer): void {
    if (peer.state && !this.frozen.has(peer.index)) this.frozen.set(peer.index, [])
  }

  thaw(peer: SimPeer): void {
    const due = this.frozen.get(peer.index)
    if (!due) return
    this.frozen.delete(peer.index)
    for (const event of due) this.schedule(0, event)
  }

  /** Can `a`'s records reach `b` now (neither frozen, `a` not muted, same side of a partition)? */
  reaches(a: SimPeer, b: SimPeer): boolean {
    if (this.frozen.has(a.index) || this.frozen.has(b.index)) return false
    if (this.muted.has(a.index)) return false
    return this.sides === null || this.sides[a.index] === this.sides[b.index]
  }

  /** A record as `to` receives it: through the real codec when enabled (null: rejected). */
  private carry(record: PlanRecord): PeerInput | null {
    const carried = this.wire ? this.wire.carry(record) : record
    return carried ? { type: 'record', record: carried as PlanRecord } : null
  }

  /** A peer's clock: real-looking wall time (records reject negative times), skewed. */
  local(peer: SimPeer): number {
    return SIM_CLOCK_ORIGIN + this.now + peer.skew
  }

  private boot(peer: SimPeer): void {
    peer.incarnation++
    peer.state = createPeer(
      {
        peerId: peer.peerId,
        room: 'sim',
        role: peer.role,
        capabilities: peer.capabilities,
        capacity: this.options.capacity,
        model: 'sim-1',
        offline: true,
        writesUnrunCode: peer.role === 'executor' && (this.options.writesUnrunCode ?? false),
        ...(this.options.owner ? { owner: this.options.owner } : {}),
      },
      this.local(peer),
      peer.persisted,
    )
    this.schedule(0, { type: 'tick', peer: peer.index, incarnation: peer.incarnation })
    this.schedule(this.rng.int(200, 2_000), {
      type: 'sync',
      peer: peer.index,
      incarnation: peer.incarnation,
    })
  }

  schedule(delay: number, event: SimEvent): void {
    this.queue.push(this.now + delay, event)
  }

  /** Peers running now: not crashed, not frozen. */
  alive(): SimPeer[] {
    return this.peers.filter((peer) => peer.state !== null && !this.frozen.has(peer.index))
  }

  private deliveryDelay(): number {
    const { min, max, slowChance, slowMax } = this.options.delay
    if (this.lossy && this.rng.chance(slowChance)) return this.rng.int(max, slowMax)
    return this.rng.int(min, max)
  }

  private broadcast(from: SimPeer, record: WireRecord): void {
    if (this.muted.has(from.index)) return
    const carried = this.wire ? this.wire.carry(record) : record
    if (!carried) return
    const input: PeerInput =
      carried.kind === 'presence'
        ? { type: 'presence', presence: carried }
        : { type: 'record', record: carried }
    for (const peer of this.peers) {
      if (peer === from || !peer.state || !this.reaches(from, peer)) continue
      if (this.lossy && this.rng.chance(this.options.loss)) continue
      this.schedule(this.deliveryDelay(), { type: 'deliver', to: peer.index, inputs: [input] })
      if (this.rng.chance(this.options.duplicate)) {
        this.schedule(this.deliveryDelay(), { type: 'deliver', to: peer.index, inputs: [input] })
      }
    }
  }

  private apply(peer: SimPeer, effects: Effects): void {
    for (const record of effects.publish) this.broadcast(peer, record)
    if (effects.sync) this.syncRound(peer)
    for (const id of effects.abortLlm) this.aborted.add(`${peer.index}:${peer.incarnation}:${id}`)
    for (const request of effects.startLlm) {
      peer.llmCalls++
      const persona = `P${peer.index}`
      const outcome = simAnswer(request.task, this.llmRng, this.options.model, persona)
      const { min, max } = this.options.llmLatency
      const habits = this.options.persona
      const latency = habits
        ? personaCallMs(SIM_PERSONAS[habits].timing, this.rng)
        : this.rng.int(min, max)
      this.schedule(latency, {
        type: 'llm',
        peer: peer.index,
        incarnation: peer.incarnation,
        requestId: request.id,
        input: { type: 'llm', requestId: request.id, outcome },
      })
    }
  }

  stepPeer(peer: SimPeer, inputs: PeerInput | PeerInput[]): void {
    const state = peer.state
    if (!state || this.frozen.has(peer.index)) return
    const before = state.counters.executed.length
    const wastedBefore = state.counters.wastedExecutions
    const now = this.local(peer)
    const effects = step(state, inputs, now)
    peer.executed.push(...state.counters.executed.slice(before))
    peer.wasted += state.counters.wastedExecutions - wastedBefore
    this.apply(peer, effects)
    this.options.onStep?.(this, peer, effects, now)
  }

  /** A record made by a person at `peer` (a goal, a cancel): applied there and gossiped. */
  inject(peer: SimPeer, record: PlanRecord): void {
    this.stepPeer(peer, { type: 'record', record })
    this.broadcast(peer, record)
  }

  crash(peer: SimPeer): void {
    if (!peer.state) return
    peer.persisted = peer.state.plan
    peer.state = null
  }

  /** Cut `peer` off (on) or reconnect it (off): what it publishes or offers by sync is lost meanwhile. */
  mute(peer: SimPeer, on: boolean): void {
    if (on) this.muted.add(peer.index)
    else this.muted.delete(peer.index)
  }

  restart(peer: SimPeer): void {
    if (peer.state) return
    this.boot(peer)
  }

  /** Anti-entropy between `peer` and one random live peer: each gets what it lacks. */
  private sync(peer: SimPeer): void {
    const others = this.alive().filter(
      (other) => other !== peer && this.reaches(peer, other) && this.reaches(other, peer),
    )
    if (!peer.state || others.length === 0) return
    const other = this.rng.pick(others)
    const session = realSyncFor(this.options.seed, this.options.realSync)
      ? reconcileSync
      : oracleSync
    const result = session(peer.state.plan, other.state!.plan)
    const carried = (records: PlanRecord[]): PeerInput[] =>
      records.flatMap((record) => {
        const input = this.carry(record)
        return input ? [input] : []
      })
    const toPeer = carried(result.toA)
    const toOther = carried(result.toB)
    if (toPeer.length)
      this.schedule(this.deliveryDelay(), { type: 'deliver', to: peer.index, inputs: toPeer })
    if (toOther.length)
      this.schedule(this.deliveryDelay(), { type: 'deliver', to: other.index, inputs: toOther })
  }

  /**
   * The round a peer asks for before a contested claim starts: anti-entropy
   * with SYNC_CHECK_PEERS live peers it can reach (the first neighbours to
   * answer, which here are any), then 'synced', after the records that round
   * brought.
   */
  private syncRound(peer: SimPeer): void {
    if (!peer.state) return
    const inputs: PeerInput[] = []
    const missing = (from: PlanState, to: PlanState, into: PeerInput[]) => {
      for (const record of from.records()) {
        if (to.has(record.id)) continue
        const input = this.carry(record)
        if (input) into.push(input)
      }
    }
    const others = this.alive().filter((other) => other !== peer && this.reaches(other, peer))
    while (others.length > SYNC_CHECK_PEERS) others.splice(this.rng.int(0, others.length - 1), 1)
    for (const other of others) {
      missing(other.state!.plan, peer.state.plan, inputs)
      const theirs: PeerInput[] = []
      if (this.reaches(peer, other)) missing(peer.state.plan, other.state!.plan, theirs)
      if (theirs.length)
        this.schedule(this.deliveryDelay(), { type: 'deliver', to: other.index, inputs: theirs })
    }
    inputs.push({ type: 'synced', answered: others.length > 0 })
    // a round trip: the request out, the records back
    this.schedule(this.deliveryDelay() + this.deliveryDelay(), {
      type: 'deliver',
      to: peer.index,
      inputs,
    })
  }

  private handle(event: SimEvent): void {
    const target = 'to' in event ? event.to : 'peer' in event ? event.peer : undefined
    const due = target === undefined ? undefined : this.frozen.get(target)
    if (due && event.type !== 'thaw' && event.type !== 'freeze') {
      // sent to a frozen peer: lost with its links; its own timers and answers wait
      if (event.type !== 'deliver') due.push(event)
      return
    }
    switch (event.type) {
      case 'deliver':
        this.stepPeer(this.peers[event.to]!, event.inputs)
        break
      case 'tick': {
        const peer = this.peers[event.peer]!
        if (peer.incarnation !== event.incarnation || !peer.state) break
        this.stepPeer(peer, { type: 'tick' })
        const late = this.lossy ? this.rng.int(0, this.options.tickLateMs) : 0
        this.schedule(this.options.tickMs + late, event)
        break
      }
      case 'llm': {
        const peer = this.peers[event.peer]!
        const key = `${peer.index}:${event.incarnation}:${event.requestId}`
        if (this.aborted.delete(key) || peer.incarnation !== event.incarnation) break
        this.stepPeer(peer, event.input)
        break
      }
      case 'crash':
        this.crash(this.peers[event.peer]!)
        break
      case 'restart':
        this.restart(this.peers[event.peer]!)
        break
      case 'sync': {
        const peer = this.peers[event.peer]!
        if (peer.incarnation !== event.incarnation || !peer.state) break
        this.sync(peer)
        this.schedule(this.options.syncIntervalMs, event)
        break
      }
      case 'partition':
        if (!this.healed) this.sides = event.sides
        break
      case 'freeze':
        if (!this.healed) this.freeze(this.peers[event.peer]!)
        break
      case 'thaw':
        this.thaw(this.peers[event.peer]!)
        break
      case 'submit': {
        const peer = this.peers[event.peer]!
        if (!peer.state) break
        this.inject(
          peer,
          newGoal(
            'sim',
            peer.peerId,
            event.text,
            this.local(peer),
            this.options.maxDepth,
            // a steering author asks to approve the first split, or every one (odd seeds)
            this.options.steer ? (this.options.seed % 2 ? 'every' : 'root') : 'none',
          ),
        )
        break
      }
    }
  }

  /** Run events until `until` returns true or virtual time passes `limit`. */
  runUntil(until: () => boolean, limit: number, checkEveryMs = 1_000): boolean {
    let nextCheck = this.now
    for (let event = this.queue.pop(); event; event = this.queue.pop()) {
      this.now = event.at
      this.handle(event.value)
      if (this.now >= nextCheck) {
        nextCheck = this.now + checkEveryMs
        if (until()) return true
      }
      if (this.now > limit) return false
    }
    return until()
  }
}
