/**
 * The Node sandbox, for real: a worker thread running QuickJS, with the
 * limits a model-written program meets in an agent. One sandbox serves the
 * file (a cold start loads the engine once); tests that kill its worker check
 * that the next run starts a fresh one.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { KILL_GRACE_MS } from './limits'
import { createNodeSandbox } from './sandbox.node.js'
import type { CodeRun } from './types'
import { MAX_CODE_CHARS } from './worker-host'

const TIME_LIMIT_MS = 1_000
const MEMORY_MB = 16
const STDOUT_CHARS = 200
const sandbox = createNodeSandbox({
  timeLimitMs: TIME_LIMIT_MS,
  memoryMb: MEMORY_MB,
  stdoutChars: STDOUT_CHARS,
})
afterAll(() => sandbox.close())

function run(code: string, signal?: AbortSignal): Promise<CodeRun> {
  return sandbox.run({ language: 'javascript', code }, signal)
}

async function expectWorking(): Promise<void> {
  const after = await run('console.log(6 * 7)')
  expect(after).toMatchObject({ stdout: '42\n', exit: 0, error: '', timedOut: false })
}

describe('node sandbox', () => {
  it('sends console.log/info to stdout and console.warn/error to stderr', async () => {
    const result = await run(
      'console.log("sum", [1, 2, 3].reduce((a, b) => a + b)); console.info({ a: 1, b: ["x"] })\n' +
        'console.warn("careful"); console.error(new Map([[1, 2n]]))',
    )
    expect(result).toMatchObject({
      language: 'javascript',
      stdout: 'sum 6\n{ a: 1, b: [ "x" ] }\n',
      stderr: 'careful\nMap(1) { 1 => 2n }\n',
      exit: 0,
      error: '',
      timedOut: false,
    })
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('reports an exception with exit 1, its message and where it was thrown, keeping earlier output', async () => {
    const result = await run('console.log("before")\nnull.x')
    expect(result.exit).toBe(1)
    expect(result.stdout).toBe('before\n')
    expect(result.error).toMatch(/^TypeError: .*null/)
    expect(result.error).toContain('program.js:2')
  })

  it('reports a syntax error with exit 1', async () => {
    const result = await run('let x = ;')
    expect(result.exit).toBe(1)
    expect(result.error).toMatch(/^SyntaxError: /)
  })

  it('reports a rejected promise and a promise that can never settle', async () => {
    const rejected = await run('(async () => { await null; throw new RangeError("late") })()')
    expect(rejected.exit).toBe(1)
    expect(rejected.error).toMatch(/^RangeError: late/)
    const pending = await run('new Promise(() => {})')
    expect(pending.exit).toBe(1)
    expect(pending.error).toMatch(/never settled/)
  })

  it('runs timers in virtual time, in order, after the script', async () => {
    const result = await run(
      'setTimeout(() => console.log("late"), 20_000)\n' +
        'setTimeout((word) => console.log(word), 10, "soon")\n' +
        'let ticks = 0; const every = setInterval(() => { if (++ticks === 3) clearInterval(every) }, 5)\n' +
        'const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))\n' +
        'queueMicrotask(() => console.log("micro"))\n' +
        ';(async () => { await sleep(16); console.log("woke, ticks:", ticks) })()\n' +
        'console.log("script")',
    )
    expect(result).toMatchObject({ exit: 0, error: '' })
    expect(result.stdout).toBe('script\nmicro\nsoon\nwoke, ticks: 3\nlate\n')
    expect(result.durationMs).toBeLessThan(TIME_LIMIT_MS)
    const thrown = await run('setTimeout(() => { throw new Error("in a timer") }, 1)')
    expect(thrown.error).toMatch(/^Error: in a timer/)
    const forever = await run('setInterval(() => {}, 1)')
    expect(forever).toMatchObject({ exit: 1, timedOut: true })
  })

  it('stops an endless loop at the time limit, and the next run works', async () => {
    const started = performance.now()
    const result = await run('console.log("start"); while (true) {}')
    // the guest's deadline stops it; the host's kill (a grace later) is the backstop
    expect(result.durationMs).toBeLessThan(TIME_LIMIT_MS + KILL_GRACE_MS)
    expect(performance.now() - started).toBeLessThan(TIME_LIMIT_MS + KILL_GRACE_MS + 1_000)
    expect(result).toMatchObject({ stdout: 'start\n', exit: 1, timedOut: true })
    expect(result.error).toBe('time limit of 1 s reached')
    // the interrupt cannot be caught by the program
    const stubborn = await run('for (;;) { try { while (true) {} } catch {} }')
    expect(stubborn).toMatchObject({ exit: 1, timedOut: true })
    await expectWorking()
  })

  it('gives the program no host: no fetch, XMLHttpRequest, require, process, importScripts or indexedDB', async () => {
    const names = ['fetch', 'XMLHttpRequest', 'require', 'process', 'importScripts', 'WebSocket']
    const result = await run(
      `console.log(${JSON.stringify(names)}.map((n) => typeof globalThis[n]).join(","))\n` +
        'console.log(String(globalThis.indexedDB))\n' +
        'fetch("http://127.0.0.1/")',
    )
    expect(result.stdout).toBe(`${names.map(() => 'undefined').join(',')}\nundefined\n`)
    expect(result.exit).toBe(1)
    expect(result.error).toMatch(/^ReferenceError: .*fetch/)
  })

  it('cuts output over the cap with a marker saying how much was cut', async () => {
    const result = await run('for (let i = 0; i < 100; i++) console.log("x".repeat(49))')
    expect(result.exit).toBe(0)
    const line = 'x'.repeat(49) + '\n'
    expect(result.stdout).toBe(line.repeat(4) + `… [cut: ${5000 - STDOUT_CHARS} more characters]`)
  })

  it('ends a memory bomb with exit 1 and a memory error, and the next run works', async () => {
    const result = await run(
      'const keep = []; for (;;) keep.push("x".repeat(100000) + keep.length)',
    )
    expect(result).toMatchObject({ exit: 1, timedOut: false })
    expect(result.error).toBe(`memory limit of ${MEMORY_MB} MB reached`)
    const big = await run('new Array(1e8).fill(1)')
    expect(big.error).toBe(`memory limit of ${MEMORY_MB} MB reached`)
    await expectWorking()
  })

  it('ends runaway recursion with a stack error', async () => {
    const result = await run('function down(n) { return down(n + 1) + 1 }\ndown(0)')
    expect(result.exit).toBe(1)
    expect(result.error).toMatch(/stack overflow/i)
    // the recursion is told once, with a count, so the message stays readable
    expect(result.error).toMatch(
      /at down \(program\.js:1:\d+\)\n {4}… the frame above \d+ more times/,
    )
    await expectWorking()
  })

  it('rejects when aborted, and the next run works', async () => {
    const controller = new AbortController()
    const pending = run('while (true) {}', controller.signal)
    setTimeout(() => controller.abort(), 200)
    await expect(pending).rejects.toThrow()
    await expect(run('1', AbortSignal.abort())).rejects.toThrow()
    await expectWorking()
  })

  it('refuses a program over the code cap and languages it cannot run, without running them', async () => {
    const long = await run(`console.log(1)${' '.repeat(MAX_CODE_CHARS)}`)
    expect(long).toMatchObject({ exit: 1, stdout: '', durationMs: 0 })
    expect(long.error).toContain(String(MAX_CODE_CHARS))
    const python = await sandbox.run({ language: 'python' as 'javascript', code: 'print(1)' })
    expect(python).toMatchObject({
      exit: 1,
      stdout: '',
      error: 'python is not supported: write JavaScript',
    })
  })

  it('terminates a worker that does not answer after the limit and a grace, and starts a fresh one', async () => {
    // a negative grace makes the host give up before the guest's own deadline: the kill path a
    // hang inside WebAssembly would take
    const impatient = createNodeSandbox({ timeLimitMs: 2_000 }, { killGraceMs: -1_800 })
    try {
      const result = await impatient.run({ language: 'javascript', code: 'while (true) {}' })
      expect(result).toMatchObject({ exit: 1, timedOut: true, error: 'time limit of 2 s reached' })
      expect(result.durationMs).toBeLessThan(1_000)
      const next = await impatient.run({ language: 'javascript', code: 'console.log("fresh")' })
      expect(next).toMatchObject({ stdout: 'fresh\n', exit: 0 })
    } finally {
      impatient.close()
    }
  })
})
