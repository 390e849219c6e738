/**
 * A concurrency pool: at most `size` jobs run at once, the rest wait in FIFO
 * order. The central orchestrator has one per role, as large as the swarm's
 * (peers of the role × per-peer capacity).
 */
export class Pool {
  private running = 0
  private readonly waiting: Array<() => void> = []
  /** most jobs that were running at once */
  peak = 0

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`pool size must be >= 1 (got ${size})`)
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) {
      // the slot is handed over by the job that frees it
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running++
    }
    this.peak = Math.max(this.peak, this.running)
    try {
      return await job()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  get queued(): number {
    return this.waiting.length
  }
}
