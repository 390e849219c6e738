/**
 * The code sandbox in real Chromium: the harness page (e2e/harness/
 * sandbox.html) starts a dedicated worker that plays the role worker and
 * creates the browser sandbox inside it, so the sandbox's Worker is nested as
 * in the app. The harness is served by the app server itself (relay/
 * app-server.ts: its Content-Security-Policy and the sandbox worker's own,
 * compression, caching), so the engine must load as it will in the app.
 * Checks the limits a model-written program meets in a tab.
 */
import { expect, type Page } from '@playwright/test'
import { serveApp, type AppServer } from '../relay/app-server'
import type { SandboxHarness } from './harness/sandbox'
import type { HarnessReply } from './harness/sandbox-messages'
import type { SandboxInit } from '../src/sandbox/limits'
import type { WorkerHostOptions } from '../src/sandbox/worker-host'
import type { CodeRun } from '../src/sandbox/types'
import { test } from './fixtures/workers'

const LIMITS: SandboxInit = { timeLimitMs: 1_000, memoryMb: 16, stdoutChars: 200 }
/**
 * The guest's own time limit far off (10 s) for runs that another path must
 * end (the host's terminate, an abort): only that path can end them within
 * 5 s, however loaded the machine.
 */
const FAR_LIMITS: SandboxInit = { ...LIMITS, timeLimitMs: 10_000 }

test.describe.configure({ mode: 'serial' })

/** built by the global setup (vite.harness.config.ts) */
const HARNESS_DIR = 'e2e/artifacts/harness'

let server: AppServer
let page: Page

test.beforeAll(async ({ browser }) => {
  server = await serveApp({
    dir: HARNESS_DIR,
    host: '127.0.0.1',
    port: 0,
    relay: { peerId: 'none', multiaddrs: [] },
    lanOrigins: () => [],
  })
  page = await browser.newPage()
  await page.goto(`http://127.0.0.1:${server.port}/sandbox.html`)
  await expect(page.locator('#state')).toHaveText('ready')
})

test.afterAll(async () => {
  await page.close()
  await server.close()
})

async function reply(
  code: string,
  config: { init?: SandboxInit; options?: WorkerHostOptions; abortAfterMs?: number } = {},
): Promise<HarnessReply> {
  return page.evaluate(([c, cfg]) => (window.sandboxHarness as SandboxHarness).run(c, cfg), [
    code,
    { init: LIMITS, ...config },
  ] as const)
}

async function run(
  code: string,
  options?: WorkerHostOptions,
  init: SandboxInit = LIMITS,
): Promise<CodeRun & { ms: number }> {
  const answer = await reply(code, options === undefined ? { init } : { init, options })
  if (!('run' in answer)) throw new Error(`rejected: ${answer.rejected}`)
  return { ...answer.run, ms: answer.ms }
}

async function expectWorking(): Promise<void> {
  expect(await run('console.log(6 * 7)')).toMatchObject({ stdout: '42\n', exit: 0 })
}

test('a program runs from inside a worker; cold and warm start are measured', async () => {
  const cold = await run(
    'console.log("sum", [1, 2, 3].reduce((a, b) => a + b)); console.warn({ a: 1 })',
  )
  expect(cold).toMatchObject({ stdout: 'sum 6\n', stderr: '{ a: 1 }\n', exit: 0, error: '' })
  const warm = await run('console.log(2 ** 10)')
  expect(warm).toMatchObject({ stdout: '1024\n', exit: 0 })
  test
    .info()
    .annotations.push({ type: 'timing', description: `cold ${cold.ms} ms, warm ${warm.ms} ms` })
  const thrown = await run('null.x')
  expect(thrown.exit).toBe(1)
  expect(thrown.error).toMatch(/^TypeError: /)
})

test('the program sees no network or storage, and the sandbox worker has none left', async () => {
  const names = [
    'fetch',
    'XMLHttpRequest',
    'WebSocket',
    'importScripts',
    'indexedDB',
    'caches',
    'self',
    'postMessage',
  ]
  const guest = await run(
    `console.log(${JSON.stringify(names)}.map((n) => typeof globalThis[n]).join(","))`,
  )
  expect(guest.stdout).toBe(`${names.map(() => 'undefined').join(',')}\n`)

  const probe = await page.evaluate(() => (window.sandboxHarness as SandboxHarness).probeLockdown())
  // the worker had them before the lockdown
  expect(probe.before).toMatchObject({
    fetch: 'function',
    importScripts: 'function',
    WebSocket: 'function',
  })
  expect(probe.left).toEqual([])
  for (const [name, type] of Object.entries(probe.types))
    expect(`${name}: ${type}`).toBe(`${name}: undefined`)
  expect(probe.fetch).toBe('TypeError')
  expect(probe.importScripts).toBe('TypeError')
})

test('an endless loop ends at the time limit, and a silent worker is terminated', async () => {
  const looped = await run('while (true) {}')
  expect(looped).toMatchObject({ exit: 1, timedOut: true, error: 'time limit of 1 s reached' })
  expect(looped.ms).toBeLessThan(2_000)
  // a negative grace makes the host give up before the guest's deadline (at 0.3 s): the
  // terminate() path a hang inside WebAssembly takes; the next run gets a fresh worker
  const killed = await run('while (true) {}', { killGraceMs: -9_700 }, FAR_LIMITS)
  expect(killed).toMatchObject({ exit: 1, timedOut: true, error: 'time limit of 10 s reached' })
  expect(killed.ms).toBeLessThan(5_000)
  expect(await run('console.log("fresh")', { killGraceMs: -700 })).toMatchObject({
    stdout: 'fresh\n',
  })
  await expectWorking()
})

test('output over the cap is cut with a marker', async () => {
  const result = await run('for (let i = 0; i < 100; i++) console.log("x".repeat(49))')
  expect(result.stdout).toBe(('x'.repeat(49) + '\n').repeat(4) + '… [cut: 4800 more characters]')
})

test('a memory bomb ends with a memory error and the sandbox survives', async () => {
  const result = await run('const keep = []; for (;;) keep.push("x".repeat(100000) + keep.length)')
  expect(result).toMatchObject({ exit: 1, timedOut: false, error: 'memory limit of 16 MB reached' })
  await expectWorking()
})

test('an aborted run rejects and the next run works', async () => {
  const answer = await reply('while (true) {}', { init: FAR_LIMITS, abortAfterMs: 200 })
  expect('rejected' in answer && answer.rejected).toMatch(/abort/i)
  expect(answer.ms).toBeLessThan(5_000)
  await expectWorking()
})
