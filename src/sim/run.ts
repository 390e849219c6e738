/**
 * One simulated run: submit the goals, let the swarm work through crashes,
 * loss and skew, let it settle, then check that every live replica holds the
 * same records and derives the same tree, and measure what it cost.
 */
import type { DerivedPlan } from '../plan/derive'
import type { PlanRecord } from '../protocol/records'
import { LEASE_TIMEOUT_MS, QUORUM_VOTES } from '../protocol/rules'
import { derived } from '../roles/room-view'
import { ATTACK_EVERY_MS, attackRecords, hostileViolations } from './hostile'
import { STEER_EVERY_MS, steerMemory, steerRecords } from './steer'
import { runWithRemovals, simOwner } from './removal'
import { createRng } from './rng'
import {
  FLOODER_PEER,
  FLOOD_RECORDS,
  floodCancels,
  floodCancelsHeld,
  floodGoals,
  floodGoalsWorked,
  floodViolations,
  quotaViolations,
} from './flood'
import { Swarm, type SimPeer, type SwarmOptions } from './swarm'
import { checkSubgoals } from './subgoals'
import { replicaFingerprint, sameRecords, treeFingerprint } from './fingerprint'

export interface SeedResult {
  seed: number
  converged: boolean
  completed: boolean
  /**
   * why an unfinished run could never have finished (undecidable), else null;
   * a strict run does not count such a run as unfinished
   */
  unfinishable: string | null
  virtualSeconds: number
  goals: number
  acceptedSplits: number
  leaves: number
  acceptedResults: number
  duplicateResults: number
  /**
   * tasks whose counted result is of an earlier epoch than another result:
   * a successor's finished work overturned (which a roll-up may have used)
   */
  overturnedResults: number
  wastedExecutions: number
  /** composite subgoals that got more than one child goal (different classifications) */
  duplicateChildren: number
  /** goals decomposed that the final tree does not hold (see duplicateChildren) */
  strayGoals: number
  /** goals that saw accept records for more than one proposal */
  acceptConflicts: number
  /** subgoals classified after a failed round; subgoals whose classification failed for good (subgoals.ts) */
  /** subgoals whose voters disagreed about their atomicity (classified by majority) */
  disputedSubgoals: number
  maxDepth: number
  llmCalls: number
  /** counted accepts by basis: how each goal was decided */
  accepts: Record<'quorum' | 'settled' | 'deadline', number>
  violations: string[]
  /**
   * the reference replica's record set and derived tree, as content ids: two
   * runs of a seed with the same fingerprint ended in the same plan
   * (`--fingerprints`, to prove an optimization changed no outcome)
   */
  fingerprint: { records: string; tree: string }
  /**
   * with a flood: goals it sent, and how many any honest peer spent a call on;
   * cancels it sent, and the most of them any replica held at any round
   */
  flood?: { sent: number; worked: number; rounds: number; records: number; heldMax: number }
}

/** When the first goal is submitted: after every peer has heard the others. */
const SUBMIT_AT_MS = 3_000
/** Once the plan settled, this long without loss or delay tails for replicas to converge. */
const CONVERGE_WITHIN_MS = 120_000

function settled(plan: DerivedPlan, goals: number): boolean {
  // the flooder's goals are not the plan the run waits for
  const roots = plan.roots.filter((id) => plan.goals.get(id)?.createdBy !== FLOODER_PEER)
  if (roots.length < goals) return false
  return roots.every((id) => {
    const status = plan.goals.get(id)?.status
    return status === 'done' || status === 'failed' || status === 'cancelled'
  })
}

/**
 * A goal no peer can ever accept: fewer than QUORUM_VOTES scorers are alive
 * for good (scheduleCrashes keeps one of each role, and a crashed scorer may
 * never come back), and no proposal has, or can still get, votes from
 * QUORUM_VOTES distinct scorers. One vote never accepts (docs/PROTOCOL.md
 * §5.2), so such a goal waits forever, by the protocol's rules.
 */
function undecidable(plan: DerivedPlan, liveScorers: readonly string[]): string | null {
  if (liveScorers.length >= QUORUM_VOTES) return null
  for (const goal of plan.goals.values()) {
    if (goal.accept || goal.cancelled) continue
    const reachable = goal.proposals.some(
      (p) =>
        new Set([...(goal.votes.get(p.id) ?? []).map((v) => v.from), ...liveScorers]).size >=
        QUORUM_VOTES,
    )
    if (!reachable)
      return `goal ${goal.id} cannot be accepted: ${liveScorers.length} live scorer(s)`
  }
  return null
}

/** Each possible crash happens with this chance, so runs see 0..maxCrashes crashes. */
const CRASH_CHANCE = 0.6
/** A crashed peer comes back with this chance (a reloaded tab), else stays dead. */
const RESTART_CHANCE = 0.7

function scheduleCrashes(sim: Swarm): void {
  if (!sim.options.crashes) return
  const left = new Map<string, number>()
  for (const peer of sim.peers) left.set(peer.role, (left.get(peer.role) ?? 0) + 1)
  const crashed = new Set<number>()
  for (let i = 0; i < (sim.options.maxCrashes ?? 1); i++) {
    if (!sim.rng.chance(CRASH_CHANCE)) continue
    // never the last of a role, or the swarm could not finish at all
    const candidates = sim.peers.filter(
      (peer) => !crashed.has(peer.index) && (left.get(peer.role) ?? 0) >= 2,
    )
    if (candidates.length === 0) return
    const victim = sim.rng.pick(candidates)
    crashed.add(victim.index)
    left.set(victim.role, left.get(victim.role)! - 1)
    sim.schedule(SUBMIT_AT_MS + sim.rng.int(0, 40_000), { type: 'crash', peer: victim.index })
    if (sim.rng.chance(RESTART_CHANCE)) {
      sim.schedule(SUBMIT_AT_MS + 40_000 + sim.rng.int(2_000, 30_000), {
        type: 'restart',
        peer: victim.index,
      })
    }
  }
}

/** Partitions start within this long of the first goal and last 5 to 30 s, then heal. */
const PARTITION_WITHIN_MS = 60_000
const PARTITION_MS = { min: 5_000, max: 30_000 }

function schedulePartitions(sim: Swarm): void {
  for (let i = 0; i < (sim.options.partitions ?? 0); i++) {
    // each peer on a random side, both sides non-empty
    const sides = sim.peers.map(() => sim.rng.int(0, 1))
    sides[0] = 0
    sides[1 + sim.rng.int(0, sides.length - 2)] = 1
    const at = SUBMIT_AT_MS + sim.rng.int(0, PARTITION_WITHIN_MS)
    sim.schedule(at, { type: 'partition', sides })
    sim.schedule(at + sim.rng.int(PARTITION_MS.min, PARTITION_MS.max), {
      type: 'partition',
      sides: null,
    })
  }
}

/** Freezes start within this long of the first goal, and outlast a lease by up to 25 s. */
const FREEZE_WITHIN_MS = 50_000
const FREEZE_MS = { min: LEASE_TIMEOUT_MS + 2_000, max: LEASE_TIMEOUT_MS + 25_000 }

function scheduleFreezes(sim: Swarm): void {
  // any role but observers (which hold nothing): deciders (scorers) hold decide tasks
  const candidates = sim.peers.filter((peer) => peer.role !== 'observer')
  for (let i = 0; i < (sim.options.freezes ?? 0); i++) {
    const victim = sim.rng.pick(candidates)
    const at = SUBMIT_AT_MS + sim.rng.int(3_000, FREEZE_WITHIN_MS)
    sim.schedule(at, { type: 'freeze', peer: victim.index })
    sim.schedule(at + sim.rng.int(FREEZE_MS.min, FREEZE_MS.max), {
      type: 'thaw',
      peer: victim.index,
    })
  }
}

export function runSeed(options: SwarmOptions): SeedResult {
  // removals draw from their own stream: the other settings' seeds run exactly as before
  const memberRng = options.removals ? createRng(options.seed).fork('members') : null
  const owner = memberRng ? simOwner(memberRng) : null
  const sim = new Swarm(owner ? { ...options, owner: owner.id } : options)
  const submitters = sim.peers.filter((peer) => peer.role !== 'observer')
  options.goals.forEach((text, i) => {
    sim.schedule(SUBMIT_AT_MS + i * 500, {
      type: 'submit',
      peer: sim.rng.pick(submitters).index,
      text,
    })
  })
  scheduleCrashes(sim)
  schedulePartitions(sim)
  scheduleFreezes(sim)

  const reference = (): SimPeer | undefined =>
    sim.alive().find((peer) => peer.role === 'observer') ?? sim.alive()[0]
  const done = () => {
    const peer = reference()
    return peer !== undefined && settled(derived(peer.state!), options.goals.length)
  }
  let completed = false
  const violations: string[] = []
  let floodRounds = 0
  let heldMax = 0
  const floodSent: PlanRecord[] = []
  const memory = steerMemory()
  // forked only for steering runs: the other suites' seeds draw exactly as before
  const steerRng = options.steer ? sim.rng.fork('steer') : null
  /** every root's author, from what its own tab sees, steers its goals (sim/steer.ts) */
  const steer = () => {
    const authors = new Set([...reference()!.state!.plan.roots.values()].map((g) => g.from))
    for (const peer of sim.alive()) {
      if (!authors.has(peer.peerId)) continue
      const room = peer.state!.config.room
      for (const record of steerRecords(
        derived(peer.state!),
        peer.peerId,
        room,
        sim.local(peer),
        steerRng!,
        memory,
      )) {
        sim.inject(peer, record)
      }
    }
  }
  let removalViolations: ((peer: SimPeer) => string[]) | null = null
  if (owner && memberRng) {
    const run = runWithRemovals(sim, owner, memberRng, SUBMIT_AT_MS, done)
    completed = run.completed
    removalViolations = run.violations
  } else if (options.steer) {
    while (!completed && sim.now < options.maxVirtualMs) {
      completed = sim.runUntil(done, Math.min(sim.now + STEER_EVERY_MS, options.maxVirtualMs))
      steer()
    }
  } else if (options.hostile || options.flood) {
    // the hostile member strikes every few seconds, through a random live peer's links
    const attack = () => {
      const via = sim.rng.pick(sim.alive())
      const room = via.state!.config.room
      if (options.hostile) {
        for (const record of attackRecords(derived(via.state!), room, sim.now)) {
          sim.inject(via, record)
        }
      }
      if (options.flood) {
        // the limits hold on every replica at every round, not only at the end
        for (const peer of sim.alive()) {
          violations.push(...floodViolations(derived(peer.state!)))
          violations.push(...quotaViolations(peer.state!.plan))
          heldMax = Math.max(heldMax, floodCancelsHeld(peer.state!.plan))
        }
        const cancels = floodCancels(room, sim.now, floodRounds)
        for (const goal of floodGoals(room, sim.now, floodRounds++)) sim.inject(via, goal)
        // gossiped through one peer, and handed by the member's second PeerId,
        // as sync would, to another: every cancel sent so far
        for (const cancel of cancels) sim.inject(via, cancel)
        floodSent.push(...cancels)
        const other = sim.rng.pick(sim.alive())
        sim.stepPeer(
          other,
          floodSent.map((record) => ({ type: 'record', record })),
        )
      }
    }
    while (!completed && sim.now < options.maxVirtualMs) {
      completed = sim.runUntil(done, Math.min(sim.now + ATTACK_EVERY_MS, options.maxVirtualMs))
      attack()
    }
    // a plan can finish before the flood is all out: the rest still comes, at the same pace
    while (options.flood && floodSent.length < FLOOD_RECORDS && sim.now < options.maxVirtualMs) {
      sim.runUntil(() => false, Math.min(sim.now + ATTACK_EVERY_MS, options.maxVirtualMs))
      attack()
    }
  } else {
    completed = sim.runUntil(done, options.maxVirtualMs)
  }
  const settledAt = sim.now

  // let the swarm settle: no more loss or slow tails, everyone alive again is synced
  sim.lossy = false
  sim.heal()
  const converged = sim.runUntil(() => sameRecords(sim.alive()), sim.now + CONVERGE_WITHIN_MS)

  const alive = sim.alive()
  const liveScorers = alive.filter((p) => p.role === 'scorer').map((p) => p.peerId)
  const unfinishable = completed ? null : undecidable(derived(reference()!.state!), liveScorers)
  if (!converged) violations.push('replicas differ after settling')
  const trees = new Map(alive.map((p) => [p, treeFingerprint(p)]))
  if (new Set(trees.values()).size !== 1) violations.push('same records, different trees')
  if (!completed && !unfinishable) violations.push('the plan did not finish in time')
  if (options.hostile) {
    for (const p of alive) violations.push(...hostileViolations(derived(p.state!)))
  }
  if (removalViolations) for (const p of alive) violations.push(...removalViolations(p))
  if (options.flood) {
    for (const p of alive) {
      violations.push(...floodViolations(derived(p.state!)))
      violations.push(...quotaViolations(p.state!.plan))
      heldMax = Math.max(heldMax, floodCancelsHeld(p.state!.plan))
    }
  }
  if (sim.wire && sim.wire.rejected > 0)
    violations.push(`${sim.wire.rejected} records rejected by the codec`)

  const peer = reference()!
  const state = peer.state!
  const plan = derived(state)
  const subgoals = checkSubgoals(plan, state.plan)
  violations.push(...subgoals.violations)
  let leaves = 0
  let acceptedResults = 0
  let maxDepth = 0
  for (const goal of plan.goals.values()) {
    maxDepth = Math.max(maxDepth, goal.depth + (goal.slots.some((slot) => slot.atomic) ? 1 : 0))
  }
  for (const { slot } of plan.leaves.values()) {
    leaves++
    if (slot.execute?.result) acceptedResults++
  }
  let duplicateResults = 0
  let overturnedResults = 0
  for (const task of plan.tasks.values()) {
    const results = state.plan.taskRecords(task.id).results
    if (results.length > 1) duplicateResults++
    const counted = task.result
    if (counted && results.some((result) => result.epoch > counted.epoch)) overturnedResults++
  }
  let duplicateChildren = 0
  let acceptConflicts = 0
  const accepts = { quorum: 0, settled: 0, deadline: 0 }
  for (const goal of plan.goals.values()) {
    if (goal.accept) accepts[goal.accept.basis]++
    const records = state.plan.goalRecords(goal.id)
    if (new Set(records.accepts.map((accept) => accept.proposal)).size > 1) acceptConflicts++
  }
  // a subgoal classified two ways: two accepts of its split whose cited votes judge it
  // differently (by a majority each), so two child goals may have been grown
  for (const goal of plan.goals.values()) {
    if (!goal.accepted) continue
    const records = state.plan.goalRecords(goal.id)
    const sides = goal.accepted.subgoals.map(() => new Set<boolean>())
    for (const accept of records.accepts) {
      if (accept.proposal !== goal.accepted.id) continue
      const voters = records.scores.filter((s) => accept.votes.includes(s.id))
      sides.forEach((set, i) => {
        const atomic = voters.filter((v) => v.judgements[i]?.atomic).length
        if (atomic * 2 !== voters.length) set.add(atomic * 2 > voters.length)
      })
    }
    duplicateChildren += sides.filter((set) => set.size > 1).length
  }
  // decomposition spent outside the tree: proposals for a goal id it does not hold (a child
  // of a split classified otherwise before its latest accept, or vetoed); reported, not a fault
  const strays = new Set<string>()
  for (const proposal of state.plan.proposals.values())
    if (!plan.goals.has(proposal.goal) && !plan.held.includes(proposal.goal))
      strays.add(proposal.goal)
  const executed = sim.peers.flatMap((p) => p.executed)
  const wastedExecutions =
    executed.length + sim.peers.reduce((sum, p) => sum + p.wasted, 0) - new Set(executed).size

  return {
    seed: options.seed,
    converged: converged && violations.length === (completed || unfinishable ? 0 : 1),
    completed,
    unfinishable,
    virtualSeconds: (settledAt - SUBMIT_AT_MS) / 1000,
    goals: plan.goals.size,
    acceptedSplits: [...plan.goals.values()].filter((goal) => goal.accept).length,
    leaves,
    acceptedResults,
    duplicateResults,
    overturnedResults,
    wastedExecutions,
    duplicateChildren,
    strayGoals: strays.size,
    acceptConflicts,
    disputedSubgoals: subgoals.disputed,
    maxDepth,
    llmCalls: sim.peers.reduce((sum, p) => sum + p.llmCalls, 0),
    accepts,
    violations,
    fingerprint: {
      records: replicaFingerprint(peer),
      tree: trees.get(peer) ?? treeFingerprint(peer),
    },
    ...(options.flood
      ? {
          flood: {
            sent: [...state.plan.roots.values()].filter((g) => g.from === FLOODER_PEER).length,
            worked: floodGoalsWorked(state.plan),
            rounds: floodRounds,
            records: floodSent.length,
            heldMax,
          },
        }
      : {}),
  }
}
