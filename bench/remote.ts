/**
 * RemoteHost: a PeerHost whose peers run in a child process (child.ts).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { RawCall } from './calls'
import type {
  CpuSample,
  HostInit,
  LoopDelay,
  PeerHost,
  PeerInfo,
  PeerReport,
  PeerSpec,
} from './host'
import type { PlanRecord } from '../src/protocol/records'
import type { PlanTree } from '../src/runtime/types'

export interface HostRequest {
  id: number
  method: keyof PeerHost | 'init'
  args: unknown[]
}

export type HostResponse =
  { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string }

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))
const PRELOAD = fileURLToPath(new URL('../scripts/node-preload.mjs', import.meta.url))

export class RemoteHost implements PeerHost {
  private readonly child: ChildProcess
  private nextId = 1
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >()
  private readonly exited: Promise<void>

  private constructor() {
    this.child = fork(CHILD, [], {
      execArgv: [
        '--import',
        PRELOAD,
        '--import',
        'tsx',
        // BENCH_CPU_PROF=dir: a V8 CPU profile of each peer process (see docs/PERFORMANCE.md)
        ...(process.env.BENCH_CPU_PROF
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
          : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.child.on('message', (message: HostResponse) => {
      const waiter = this.pending.get(message.id)
      if (!waiter) return
      this.pending.delete(message.id)
      if (message.ok) waiter.resolve(message.result)
      else waiter.reject(new Error(message.error))
    })
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        for (const waiter of this.pending.values()) {
          waiter.reject(new Error(`peer process exited (${signal ?? code})`))
        }
        this.pending.clear()
        resolve()
      })
    })
  }

  static async create(init: HostInit): Promise<RemoteHost> {
    const host = new RemoteHost()
    await host.call('init', [init])
    return host
  }

  private call<T>(method: HostRequest['method'], args: unknown[]): Promise<T> {
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.child.send({ id, method, args } satisfies HostRequest)
    })
  }

  start(peers: PeerSpec[]): Promise<PeerInfo[]> {
    return this.call('start', [peers])
  }
  links(): Promise<Record<number, number>> {
    return this.call('links', [])
  }
  submit(index: number, text: string, maxDepth: number): Promise<string> {
    return this.call('submit', [index, text, maxDepth])
  }
  watchDone(index: number, goals: string[], timeoutMs: number): Promise<number> {
    return this.call('watchDone', [index, goals, timeoutMs])
  }
  reports(): Promise<PeerReport[]> {
    return this.call('reports', [])
  }
  takeCalls(): Promise<RawCall[]> {
    return this.call('takeCalls', [])
  }
  tree(index: number): Promise<PlanTree> {
    return this.call('tree', [index])
  }
  records(index: number): Promise<PlanRecord[]> {
    return this.call('records', [index])
  }
  cpu(): Promise<CpuSample> {
    return this.call('cpu', [])
  }
  loopDelay(reset: boolean): Promise<LoopDelay> {
    return this.call('loopDelay', [reset])
  }
  stopPeer(index: number): Promise<void> {
    return this.call('stopPeer', [index])
  }
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await Promise.race([
        this.call('stop', []).catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, 15_000)),
      ])
      // it exits by itself right after answering (writing its CPU profile, if asked)
      const timer = setTimeout(() => this.child.kill('SIGTERM'), 10_000)
      await this.exited
      clearTimeout(timer)
    }
    await this.exited
  }
}
