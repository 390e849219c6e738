/**
 * Worker threads that run seeds, started once for a whole suite. A thread
 * costs some 2.4 CPU-s to start (tsx registers its loader and compiles every
 * module again in each thread), which is ten seeds' work: a suite of 18
 * settings that started its own threads per setting spent a third of its CPU
 * starting them. Each thread takes the next seed when it is free, so a slow
 * seed does not hold up a shard.
 */
import { Worker, parentPort } from 'node:worker_threads'
import type { SeedResult } from './run'
import type { SwarmOptions } from './options'

type Base = Omit<SwarmOptions, 'seed'>

/** What the main thread sends a thread: one seed to run under a setting's options. */
interface SeedJob {
  base: Base
  seed: number
}

/** What a thread answers: the seed's result, or why it threw. */
type SeedReply = { result: SeedResult } | { error: string }

interface Pending {
  job: SeedJob
  resolve: (result: SeedResult) => void
  reject: (error: Error) => void
}

/** A seed that threw in a worker thread (its message and stack, as text). */
export class SeedRunError extends Error {
  constructor(
    readonly seed: number,
    detail: string,
  ) {
    super(`seed ${seed} threw in a worker thread: ${detail}`)
    this.name = 'SeedRunError'
  }
}

export class SeedPool {
  private readonly idle: Worker[] = []
  private readonly busy = new Map<Worker, Pending>()
  private readonly queue: Pending[] = []
  private failure: Error | null = null
  /** set by close(): threads exiting now is expected */
  private closed = false

  /** `entry`: the module a thread imports, which calls serveSeeds() off the main thread. */
  constructor(size: number, entry: string) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('../../scripts/ts-worker.mjs', import.meta.url), {
        workerData: { entry },
      })
      worker.on('message', (reply: SeedReply) => this.answered(worker, reply))
      worker.on('error', (error) => this.fail(error))
      worker.on('exit', (code) => {
        if (this.busy.has(worker) || (code !== 0 && !this.closed))
          this.fail(new Error(`a seed worker thread exited with code ${code}`))
      })
      this.idle.push(worker)
    }
  }

  /** Run every seed under `base`; results in seed order. */
  run(base: Base, seeds: number[]): Promise<SeedResult[]> {
    const runs = seeds.map(
      (seed) =>
        new Promise<SeedResult>((resolve, reject) => {
          this.queue.push({ job: { base, seed }, resolve, reject })
        }),
    )
    this.dispatch()
    return Promise.all(runs).then((results) => results.sort((a, b) => a.seed - b.seed))
  }

  /** Stop the threads (after the last run). */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.idle, ...this.busy.keys()].map((worker) => worker.terminate()))
  }

  private dispatch(): void {
    if (this.failure) {
      for (const pending of this.queue.splice(0)) pending.reject(this.failure)
      return
    }
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!
      const pending = this.queue.shift()!
      this.busy.set(worker, pending)
      worker.postMessage(pending.job)
    }
  }

  private answered(worker: Worker, reply: SeedReply): void {
    const pending = this.busy.get(worker)
    if (!pending) return
    this.busy.delete(worker)
    this.idle.push(worker)
    if ('result' in reply) pending.resolve(reply.result)
    else pending.reject(new SeedRunError(pending.job.seed, reply.error))
    this.dispatch()
  }

  private fail(error: Error): void {
    this.failure ??= error
    for (const pending of this.busy.values()) pending.reject(error)
    this.busy.clear()
    this.dispatch()
  }
}

/**
 * In a worker thread: run each seed the main thread sends, and answer its
 * result. The simulator's modules load here only, not on the main thread,
 * which only hands out seeds (each thread compiles them anew under tsx).
 */
export function serveSeeds(): void {
  const simulator = import('./run')
  parentPort!.on('message', async ({ base, seed }: SeedJob) => {
    let reply: SeedReply
    try {
      const { runSeed } = await simulator
      reply = { result: runSeed({ ...base, seed }) }
    } catch (error) {
      reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }
    }
    parentPort!.postMessage(reply)
  })
}
