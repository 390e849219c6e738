/**
 * The host half of the sandbox with a scripted worker: how runs are queued,
 * and what the host does when a worker will not start, dies mid-run, runs
 * out of memory or is closed. (sandbox.node.test.ts runs the real thing.)
 */
import { describe, expect, it } from 'vitest'
import { resolveLimits } from './limits'
import type { RunMessage } from './messages'
import type { GuestResult } from './quickjs-guest'
import { createWorkerSandbox, type SpawnWorker, type WorkerEvent } from './worker-host'

const LIMITS = resolveLimits({ timeLimitMs: 1_000, memoryMb: 8 })
const request = (code: string) => ({ language: 'javascript' as const, code })
const ok = (stdout: string): GuestResult => ({
  stdout,
  stderr: '',
  exit: 0,
  error: '',
  durationMs: 1,
  timedOut: false,
})

/** A worker the test drives: it records what it was sent and answers when told. */
interface FakeWorker {
  sent: RunMessage[]
  terminated: boolean
  emit(event: WorkerEvent): void
}

function fakeWorkers(): { spawn: SpawnWorker; workers: FakeWorker[] } {
  const workers: FakeWorker[] = []
  const spawn: SpawnWorker = (onEvent) => {
    const worker: FakeWorker = { sent: [], terminated: false, emit: onEvent }
    workers.push(worker)
    return {
      post: (message) => worker.sent.push(message),
      terminate: () => void (worker.terminated = true),
    }
  }
  return { spawn, workers }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('worker host', () => {
  it('starts the worker on the first run, waits for it, and sends one program at a time', async () => {
    const { spawn, workers } = fakeWorkers()
    const sandbox = createWorkerSandbox(LIMITS, spawn)
    expect(workers).toHaveLength(0)
    const first = sandbox.run(request('a'))
    const second = sandbox.run(request('b'))
    await tick()
    const worker = workers[0] as FakeWorker
    expect(worker.sent).toHaveLength(0)
    worker.emit({ kind: 'message', message: { type: 'ready' } })
    await tick()
    expect(worker.sent.map((m) => m.code)).toEqual(['a'])
    expect(worker.sent[0]?.limits).toEqual(LIMITS)
    worker.emit({ kind: 'message', message: { type: 'done', id: 999, result: ok('stray') } })
    worker.emit({
      kind: 'message',
      message: { type: 'done', id: worker.sent[0]?.id ?? 0, result: ok('A') },
    })
    expect(await first).toMatchObject({ code: 'a', language: 'javascript', stdout: 'A', exit: 0 })
    await tick()
    expect(worker.sent.map((m) => m.code)).toEqual(['a', 'b'])
    worker.emit({
      kind: 'message',
      message: { type: 'done', id: worker.sent[1]?.id ?? 0, result: ok('B') },
    })
    expect(await second).toMatchObject({ stdout: 'B' })
    expect(workers).toHaveLength(1)
    sandbox.close()
    expect(worker.terminated).toBe(true)
  })

  it('reports a worker that cannot load the engine, and tries a fresh one next time', async () => {
    const { spawn, workers } = fakeWorkers()
    const sandbox = createWorkerSandbox(LIMITS, spawn)
    const run = sandbox.run(request('a'))
    await tick()
    workers[0]?.emit({ kind: 'message', message: { type: 'broken', message: 'no wasm' } })
    expect(await run).toMatchObject({ exit: 1, error: 'the sandbox could not start: no wasm' })
    expect(workers[0]?.terminated).toBe(true)
    void sandbox.run(request('b'))
    await tick()
    expect(workers).toHaveLength(2)
    sandbox.close()
  })

  it('gives up on a worker that does not start in time', async () => {
    const { spawn } = fakeWorkers()
    const sandbox = createWorkerSandbox(LIMITS, spawn, { loadTimeoutMs: 20 })
    const run = await sandbox.run(request('a'))
    expect(run).toMatchObject({
      exit: 1,
      error: 'the sandbox could not start: no answer in 0.02 s',
    })
  })

  it('reports a worker that dies mid-run, or runs out of memory, and replaces it', async () => {
    const { spawn, workers } = fakeWorkers()
    const sandbox = createWorkerSandbox(LIMITS, spawn)
    const crashed = sandbox.run(request('a'))
    await tick()
    workers[0]?.emit({ kind: 'message', message: { type: 'ready' } })
    await tick()
    workers[0]?.emit({ kind: 'failure', message: 'the worker exited (1)', outOfMemory: false })
    expect(await crashed).toMatchObject({
      exit: 1,
      error: 'the sandbox stopped: the worker exited (1)',
    })
    const starved = sandbox.run(request('b'))
    await tick()
    expect(workers).toHaveLength(2)
    workers[1]?.emit({ kind: 'message', message: { type: 'ready' } })
    await tick()
    workers[1]?.emit({ kind: 'failure', message: 'heap', outOfMemory: true })
    expect(await starved).toMatchObject({ exit: 1, error: 'memory limit of 8 MB reached' })
    sandbox.close()
  })

  it('answers a pending run when closed, and starts again on the next run', async () => {
    const { spawn, workers } = fakeWorkers()
    const sandbox = createWorkerSandbox(LIMITS, spawn)
    const pending = sandbox.run(request('a'))
    await tick()
    workers[0]?.emit({ kind: 'message', message: { type: 'ready' } })
    await tick()
    sandbox.close()
    expect(await pending).toMatchObject({
      exit: 1,
      error: 'the sandbox stopped: the sandbox was closed',
    })
    expect(workers[0]?.terminated).toBe(true)
    void sandbox.run(request('b'))
    await tick()
    expect(workers).toHaveLength(2)
    sandbox.close()
  })

  it('rejects an aborted run, even while the worker is still loading', async () => {
    const { spawn, workers } = fakeWorkers()
    const sandbox = createWorkerSandbox(LIMITS, spawn)
    const controller = new AbortController()
    const run = sandbox.run(request('a'), controller.signal)
    await tick()
    controller.abort()
    await expect(run).rejects.toThrow(/abort/i)
    expect(workers[0]?.terminated).toBe(true)
  })
})
