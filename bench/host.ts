/**
 * A peer host: runs a group of swarm peers (real Node runtimes) in this
 * process. The swarm runner drives hosts through the `PeerHost` interface;
 * a host in a child process (child.ts) is the same class behind IPC.
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { ModelConfig } from '../src/llm/types'
import { contentId } from '../src/protocol/hash'
import type { PlanRecord } from '../src/protocol/records'
import {
  inviteFragment,
  memberInviteFragment,
  memberInviteFromFragment,
  OldInviteError,
  roomFromFragment,
} from '../src/protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../src/protocol/member-key'
import { deriveRoomKey, newRoomSecret, type RoomKey } from '../src/protocol/room-key'
import { createNodeRuntime } from '../src/runtime/node.js'
import type { PeerRuntime, PlanTree, Role, TrafficStats } from '../src/runtime/types'
import { CallRecorder, type RawCall } from './calls'

export interface PeerSpec {
  /** index in the whole swarm (peer numbers in reports) */
  index: number
  role: Role
}

export interface HostInit {
  /** the room as an invite fragment (benchRoomFragment): hosts may be other processes */
  room: string
  relays: string[]
  /** the mock LLM's base URL (…/v1) */
  baseUrl: string
  /** per-peer concurrent LLM calls; undefined = the runtime's default */
  capacity?: number
  /**
   * measure the event loop's delay (loopDelay); default true. It samples on a
   * 10 ms timer, which was most of an idle agent's CPU: bench:idle, which
   * measures what an agent costs, turns it off.
   */
  loopDelay?: boolean
  /** tabs keep the built-in offline model instead of the mock LLM (bench:idle --offline) */
  offline?: boolean
}

export interface PeerInfo {
  index: number
  role: Role
  peerId: string
}

export interface PeerReport extends PeerInfo {
  traffic: TrafficStats
  /** direct links to other peers */
  links: number
  /** of which WebRTC (the rest are TCP: Node peers link to each other over TCP) */
  webrtcLinks: number
  /** a hash of the peer's plan tree: equal hashes mean the same tree */
  fingerprint: string
}

/** Event-loop delay of a peer process: how late its callbacks ran (CPU starvation), in ms. */
export interface LoopDelay {
  p50: number
  p99: number
  max: number
}

export interface CpuSample {
  /** microseconds of CPU (user + system) this process used so far */
  cpuMicros: number
  at: number
}

/** What the swarm runner needs from a host, in-process or behind IPC. */
export interface PeerHost {
  start(peers: PeerSpec[]): Promise<PeerInfo[]>
  /** direct links per peer of this host */
  links(): Promise<Record<number, number>>
  /** publish a root goal from a peer; returns its id */
  submit(index: number, text: string, maxDepth: number): Promise<string>
  /** resolves with the local time at which the peer's tree first showed every goal in `goals` done */
  watchDone(index: number, goals: string[], timeoutMs: number): Promise<number>
  reports(): Promise<PeerReport[]>
  /** the LLM calls made by this host's peers so far (and forgets them) */
  takeCalls(): Promise<RawCall[]>
  /** the latest tree of a peer */
  tree(index: number): Promise<PlanTree>
  /** every plan record a peer holds (for the timeline analysis) */
  records(index: number): Promise<PlanRecord[]>
  cpu(): Promise<CpuSample>
  /** event-loop delay since the last reset (and reset it) */
  loopDelay(reset: boolean): Promise<LoopDelay>
  /** stop one peer */
  stopPeer(index: number): Promise<void>
  stop(): Promise<void>
}

export const WATCH_POLL_MS = 20

/** A hash of a plan tree: equal hashes mean the same tree. */
export function fingerprint(tree: PlanTree): string {
  return contentId(tree as unknown as never)
}

/**
 * Polls a peer's tree until every goal in `goals` is done; resolves with the
 * local time it first saw that. Rejects when one of them failed or was
 * cancelled, on timeout, or once `stopped()`.
 */
export async function watchDone(
  tree: () => PlanTree | Promise<PlanTree>,
  goals: string[],
  timeoutMs: number,
  stopped: () => boolean,
  pollMs = WATCH_POLL_MS,
): Promise<number> {
  const want = new Set(goals)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (stopped()) throw new Error('host stopped')
    const current = await tree()
    const done = current.goals.filter((goal) => want.has(goal.id) && goal.status === 'done')
    if (done.length === want.size) return Date.now()
    const failed = current.goals.find(
      (goal) => want.has(goal.id) && (goal.status === 'failed' || goal.status === 'cancelled'),
    )
    if (failed) throw new Error(`goal ${failed.id.slice(0, 12)} ended ${failed.status}`)
    if (Date.now() > deadline) {
      const p = current.progress
      throw new Error(
        `timed out after ${timeoutMs} ms: ${done.length}/${want.size} goals done, ` +
          `${p.leavesDone}/${p.leaves} leaves done, ${p.goals} goals known`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}

/**
 * A new bench room as an invite fragment. With `members` (runs with tabs,
 * whose app always joins as a member) it is the room owner's version-7 link:
 * every peer, tab or Node, acts for the owner (one member, no admits
 * needed). Without, a bare room and key: Node peers without members, as the
 * benchmark measured before members existed.
 */
export function benchRoomFragment(name: string, members: boolean): string {
  const room = deriveRoomKey(name, newRoomSecret())
  if (!members) return inviteFragment(room)
  const me = newMemberSeed()
  return memberInviteFragment({ room, owner: deriveMemberKey(me).id, me })
}

/** The room (and the owner's member, for a version-7 fragment) that benchRoomFragment made. */
export function benchRoom(fragment: string): {
  room: RoomKey
  member?: { owner: string; seed: Uint8Array }
} {
  try {
    const invite = memberInviteFromFragment(fragment)
    if (invite) return { room: invite.room, member: { owner: invite.owner, seed: invite.me } }
  } catch (err) {
    if (!(err instanceof OldInviteError)) throw err
  }
  const room = roomFromFragment(fragment)
  if (!room) throw new Error('bench: the room fragment does not parse')
  return { room }
}

export class LocalHost implements PeerHost {
  private readonly peers = new Map<number, { spec: PeerSpec; runtime: PeerRuntime }>()
  private readonly recorder = new CallRecorder()
  private stopped = false
  private readonly delay = monitorEventLoopDelay({ resolution: 10 })

  constructor(private readonly init: HostInit) {
    if (init.loopDelay !== false) this.delay.enable()
  }

  async start(specs: PeerSpec[]): Promise<PeerInfo[]> {
    const model: ModelConfig = {
      provider: 'openai-compatible',
      model: 'mock',
      baseUrl: this.init.baseUrl,
    }
    const started = await Promise.all(
      specs.map(async (spec) => {
        const runtime = await createNodeRuntime({
          ...benchRoom(this.init.room),
          role: spec.role,
          relays: this.init.relays,
          rtcBindAddress: '127.0.0.1',
          // as `npm run agent` runs: tabs of this machine link over its WebSocket
          tabLinks: true,
          // each peer its own key, as each person brings theirs: a persona's rate limit is per key
          model: { ...model, apiKey: `bench-peer-${spec.index}` },
          ...(this.init.capacity !== undefined ? { capacity: this.init.capacity } : {}),
          providerInit: { fetch: this.recorder.fetchFor(spec.index) },
          log: process.env.BENCH_LOG
            ? (m: string) => console.log(`[peer ${spec.index}] ${m}`)
            : () => {},
        })
        this.peers.set(spec.index, { spec, runtime })
        return { index: spec.index, role: spec.role, peerId: runtime.peerId }
      }),
    )
    return started
  }

  private peer(index: number): PeerRuntime {
    const peer = this.peers.get(index)
    if (!peer) throw new Error(`no peer ${index} in this host`)
    return peer.runtime
  }

  async links(): Promise<Record<number, number>> {
    const out: Record<number, number> = {}
    for (const [index, { runtime }] of this.peers) {
      const c = runtime.connections()
      out[index] = c.direct + c.other
    }
    return out
  }

  async submit(index: number, text: string, maxDepth: number): Promise<string> {
    return this.peer(index).submitGoal(text, maxDepth)
  }

  watchDone(index: number, goals: string[], timeoutMs: number): Promise<number> {
    const runtime = this.peer(index)
    return watchDone(
      () => runtime.tree(),
      goals,
      timeoutMs,
      () => this.stopped,
    )
  }

  async reports(): Promise<PeerReport[]> {
    return [...this.peers.values()].map(({ spec, runtime }) => {
      const c = runtime.connections()
      return {
        index: spec.index,
        role: spec.role,
        peerId: runtime.peerId,
        traffic: runtime.traffic(),
        links: c.direct + c.other,
        webrtcLinks: c.direct,
        fingerprint: fingerprint(runtime.tree()),
      }
    })
  }

  async takeCalls(): Promise<RawCall[]> {
    return this.recorder.calls.splice(0)
  }

  async tree(index: number): Promise<PlanTree> {
    return this.peer(index).tree()
  }

  async records(index: number): Promise<PlanRecord[]> {
    return this.peer(index).records()
  }

  async cpu(): Promise<CpuSample> {
    const usage = process.cpuUsage()
    return { cpuMicros: usage.user + usage.system, at: Date.now() }
  }

  async loopDelay(reset: boolean): Promise<LoopDelay> {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100
    const out = {
      p50: ms(this.delay.percentile(50)),
      p99: ms(this.delay.percentile(99)),
      max: ms(this.delay.max),
    }
    if (reset) this.delay.reset()
    // BENCH_CPU_PROF: mark the timed run in the profile's clock (µs, monotonic)
    // so a profile can be cut to it (docs/PERFORMANCE.md)
    if (process.env.BENCH_CPU_PROF) {
      const mark = `${reset ? 'start' : 'end'} ${process.hrtime.bigint() / 1000n}\n`
      // node makes --cpu-prof-dir only when it writes the profile, at exit
      mkdirSync(process.env.BENCH_CPU_PROF, { recursive: true })
      appendFileSync(join(process.env.BENCH_CPU_PROF, `window.${process.pid}`), mark)
    }
    return out
  }

  async stopPeer(index: number): Promise<void> {
    const peer = this.peers.get(index)
    if (!peer) return
    this.peers.delete(index)
    await peer.runtime.stop()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.delay.disable()
    const all = [...this.peers.values()]
    this.peers.clear()
    await Promise.allSettled(all.map(({ runtime }) => runtime.stop()))
  }
}
