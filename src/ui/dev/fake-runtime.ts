/**
 * DEV ONLY: a PeerRuntime that replays protocol simulator runs, for working
 * on the UI without a relay or other tabs (`npm run dev`, then open
 * /?fake=1). It is loaded behind `import.meta.env.DEV`, so it never reaches
 * the production bundle, and no test uses it.
 *
 * Each submitted goal runs a whole seeded simulation up front (about half a
 * second), recording the observer's tree and this role's activity every
 * virtual half second; the frames are then replayed in real time, faster.
 * An API key of "bad" makes the role report an auth error until changed.
 */
import type { PlanTree } from '../../plan/tree'
import { costUsd } from '../../llm/pricing'
import { projectTree, zeroRoleUsage } from '../../plan/tree'
import { derived } from '../../roles/room-view'
import { ActivityLog } from '../../runtime/activity'
import type {
  Capability,
  ConnectionSummary,
  ModelConfig,
  PeerRuntime,
  RoleActivity,
  RuntimeEvents,
  RuntimeInit,
} from '../../runtime/types'
import { runSeed } from '../../sim/run'
import { DEFAULT_SWARM } from '../../sim/swarm'
import { emptyTraffic } from '../../runtime/traffic'

const FRAME_MS = 500
const SPEED = 4

interface Frame {
  at: number
  tree: PlanTree
  activity: RoleActivity
}

interface Run {
  startedAt: number
  frames: Frame[]
  goalId: string | null
}

function randomPeerId(): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
  let id = '12D3KooW'
  for (let i = 0; i < 44; i++) id += alphabet[Math.floor(Math.random() * alphabet.length)]
  return id
}

function simulate(init: RuntimeInit, text: string, maxDepth: number, seed: number): Frame[] {
  const frames: Frame[] = []
  let log: ActivityLog | null = null
  let lastFrame = -FRAME_MS
  runSeed({
    ...DEFAULT_SWARM,
    seed,
    goals: [text],
    maxDepth,
    crashes: false,
    maxSkewMs: 0,
    onStep(sim, peer, effects, now) {
      const mine = sim.peers.find((p) => p.role === init.role)
      if (peer === mine && peer.state) {
        log ??= new ActivityLog(peer.state)
        log.record(effects.events, effects.publish, now)
      }
      if (now - lastFrame < FRAME_MS) return
      const observer = sim.peers.find((p) => p.role === 'observer')?.state
      if (!observer || !mine?.state) return
      lastFrame = now
      log ??= new ActivityLog(mine.state)
      frames.push({
        at: now,
        tree: projectTree(derived(observer), observer.plan, costUsd),
        activity: log.snapshot(init.model ?? { provider: 'offline', model: 'offline-v1' }, now),
      })
    },
  })
  return frames
}

function emptyActivity(init: RuntimeInit): RoleActivity {
  return {
    role: init.role,
    capabilities: init.capabilities ?? ['can_write_text', 'can_run_code', 'can_query_api'],
    model: init.model?.model ?? 'offline-v1',
    offline: (init.model?.provider ?? 'offline') === 'offline',
    healthy: true,
    lastError: null,
    lastErrorKind: null,
    modelStatus: { state: 'unknown', by: null, error: null, kind: null },
    work: [],
    recent: [],
    swarm: [],
    llm: {
      calls: { decompose: 0, score: 0, execute: 0, rollup: 0 },
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      unpricedCalls: 0,
      failedCalls: 0,
    },
  }
}

export async function createFakeRuntime(init: RuntimeInit): Promise<PeerRuntime> {
  const peerId = randomPeerId()
  const runs: Run[] = []
  const listeners: { [E in keyof RuntimeEvents]: Set<(d: RuntimeEvents[E]) => void> } = {
    tree: new Set(),
    activity: new Set(),
    entry: new Set(),
    connections: new Set(),
    call: new Set(),
    live: new Set(),
    members: new Set(),
  }
  let model: ModelConfig = init.model ?? { provider: 'offline', model: 'offline-v1' }
  let capabilities: Capability[] = init.capabilities ?? [
    'can_write_text',
    'can_run_code',
    'can_query_api',
  ]
  let tree: PlanTree = {
    goals: [],
    over: false,
    progress: { leaves: 0, leavesDone: 0, leavesFailed: 0, goals: 0 },
    roomUsage: zeroRoleUsage(),
  }
  let activity = emptyActivity(init)
  const connections: ConnectionSummary = {
    relay: 'up',
    relays: [{ peerId: randomPeerId(), connected: true, reserved: true }],
    peers: Array.from({ length: 10 }, (_, i) => ({
      peerId: randomPeerId(),
      kind: i < 8 ? ('direct-webrtc' as const) : ('relayed' as const),
      ...(i < 8
        ? { path: i < 4 ? ('lan' as const) : i < 6 ? ('nat' as const) : ('turn' as const) }
        : {}),
    })),
    direct: 8,
    relayed: 2,
    viaRelay: 0,
    unreachable: [],
    other: 0,
    known: 10,
    quiet: false,
  }
  const emit = <E extends keyof RuntimeEvents>(event: E, detail: RuntimeEvents[E]) => {
    for (const cb of listeners[event]) (cb as (d: RuntimeEvents[E]) => void)(detail)
  }

  const frameAt = (run: Run, now: number): Frame | undefined => {
    const virtual = (now - run.startedAt) * SPEED
    let found: Frame | undefined
    for (const frame of run.frames) {
      if (frame.at > virtual) break
      found = frame
    }
    return found
  }

  const tick = () => {
    const now = Date.now()
    const frames = runs.map((run) => frameAt(run, now)).filter((f): f is Frame => !!f)
    const goals = frames.flatMap((f) => f.tree.goals)
    for (const [i, run] of runs.entries()) run.goalId ??= frames[i]?.tree.goals[0]?.id ?? null
    tree = {
      goals,
      over: frames.every((f) => f.tree.over),
      progress: frames.reduce(
        (sum, f) => ({
          leaves: sum.leaves + f.tree.progress.leaves,
          leavesDone: sum.leavesDone + f.tree.progress.leavesDone,
          leavesFailed: sum.leavesFailed + f.tree.progress.leavesFailed,
          goals: sum.goals + f.tree.progress.goals,
        }),
        { leaves: 0, leavesDone: 0, leavesFailed: 0, goals: 0 },
      ),
      roomUsage: frames.at(-1)?.tree.roomUsage ?? tree.roomUsage,
    }
    const latest = frames.at(-1)?.activity
    const bad = model.apiKey === 'bad'
    activity = {
      ...(latest ?? activity),
      capabilities,
      model: model.model,
      offline: model.provider === 'offline',
      healthy: !bad,
      lastError: bad ? 'The provider rejected the API key (401).' : null,
      lastErrorKind: bad ? 'auth' : null,
      modelStatus: bad
        ? {
            state: 'broken',
            by: 'call',
            error: 'The provider rejected the API key (401).',
            kind: 'auth',
          }
        : { state: 'unknown', by: null, error: null, kind: null },
    }
    emit('tree', tree)
    emit('activity', activity)
  }
  const timer = setInterval(tick, 250)

  return {
    peerId,
    room: init.room.name,
    roomId: init.room.id,
    role: init.role,
    tree: () => tree,
    activity: () => activity,
    connections: () => connections,
    calls: () => [],
    live: () => [],
    traffic: emptyTraffic,
    records: () => [],
    on(event, cb) {
      listeners[event].add(cb as never)
      return () => listeners[event].delete(cb as never)
    },
    async submitGoal(text, maxDepth = 3) {
      const frames = simulate(init, text, maxDepth, runs.length + 1)
      runs.push({ startedAt: Date.now() - 3_000 / SPEED, frames, goalId: null })
      return frames.at(-1)?.tree.goals[0]?.id ?? ''
    },
    async cancelGoal() {},
    async steerGoal() {},
    setCapabilities(next) {
      capabilities = [...next]
    },
    setTools() {},
    setMcp() {},
    answerToolCall() {},
    setModel(next) {
      model = next
    },
    // the fake's model "works" unless its key is 'bad' (tick above): a check changes nothing
    modelChecked() {},
    // the fake runs no LLM: nothing to cap, nobody's goals to refuse
    setBudget() {},
    setGoalsFrom() {},
    exportPlan(goalId, format) {
      const goal = tree.goals.find((g) => g.id === goalId)
      if (format === 'json') return JSON.stringify(goal ?? null, null, 2)
      return `# ${goal?.text ?? 'Plan'}\n\n${goal?.rollup.output ?? '(not finished yet)'}\n`
    },
    async archiveFinished() {
      return { goals: 0, records: 0, json: null }
    },
    // the fake has no network: nobody answers
    async syncRound() {
      return 0
    },
    // the fake has no members: the Invite panel shows the room's link alone
    members: () => null,
    roomKey: () => init.room,
    member: () => null,
    invites: () => [],
    invitePerson: () => Promise.reject(new Error('the fake runtime has no members')),
    removeMember: () => Promise.reject(new Error('the fake runtime has no members')),
    makeCoOwner: () => Promise.reject(new Error('the fake runtime has no members')),
    resetInvite: () => Promise.reject(new Error('the fake runtime has no members')),
    async stop() {
      clearInterval(timer)
    },
  }
}
