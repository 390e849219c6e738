/**
 * requireRoot (fixtures/capabilities.ts) where root is missing, for real: a
 * tiny Playwright run of fixtures/needs-root as an ordinary user (nobody, by
 * setpriv, when this run is root as CI's is), with the reporters `npm test`
 * uses. Outside CI the test that needs root is skipped with one line and the
 * summary names it; with CI=true it fails with that line.
 *
 * The run works on a copy (the fixture, the capability check, the reporter
 * and Playwright itself) in a directory of its own, so an ordinary user can
 * read it wherever this checkout is.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from '@playwright/test'
import { RUN_AS_ROOT } from './fixtures/capabilities'
import { test } from './fixtures/workers'

/** The uid and gid of `nobody` on Linux (the kernel's overflow ids). */
const NOBODY = 65534
const FIXTURE = 'e2e/fixtures/needs-root/needs-root.fixture.ts'
const SKIP_LINE = `needs root and network namespaces; not root here: ${RUN_AS_ROOT}`

let dir: string

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'murm-needs-root-'))
  for (const path of [
    'e2e/fixtures/capabilities.ts',
    'e2e/fixtures/skip-summary.ts',
    'e2e/fixtures/needs-root',
    'node_modules/@playwright/test',
    'node_modules/playwright',
    'node_modules/playwright-core',
  ])
    cpSync(path, join(dir, path), { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  // readable by anyone whatever this checkout's modes and the umask
  execFileSync('chmod', ['-R', 'a+rX', dir])
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** One run of the fixture as a user who is not root; its exit code and output. */
async function runFixture(ci: boolean): Promise<{ code: number | null; output: string }> {
  const home = join(dir, ci ? 'home-ci' : 'home')
  mkdirSync(home)
  chmodSync(home, 0o777)
  const command = [
    process.execPath,
    'node_modules/@playwright/test/cli.js',
    'test',
    '-c',
    'e2e/fixtures/needs-root/playwright.config.ts',
  ]
  const asSomeoneElse = process.getuid?.() === 0
  const [file, ...args] = asSomeoneElse
    ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...command]
    : command
  const child = spawn(file!, args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      NEEDS_ROOT_OUTPUT: join(home, 'results'),
      ...(ci ? { CI: 'true' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((done) => child.on('close', done))
  return { code, output }
}

test('a test that needs root, run without root: skipped with one line outside CI, failed with CI=true', async () => {
  test.setTimeout(60_000)
  const [contributor, ci] = await Promise.all([runFixture(false), runFixture(true)])

  for (const run of [contributor, ci]) {
    // the runner really ran, as someone who is not root, and never the body that needs root
    const uid = Number(/^RUN_AS_UID (\d+)$/m.exec(run.output)?.[1])
    expect(uid, run.output).toBeGreaterThan(0)
    expect(run.output).not.toContain('NEEDS_ROOT_BODY_RAN')
  }

  expect(contributor.code, contributor.output).toBe(0)
  expect(contributor.output).toMatch(/^ {2}1 skipped$/m)
  expect(contributor.output).toMatch(/^ {2}1 passed/m)
  // the summary is the run's last word
  expect(contributor.output.trimEnd().split('\n').slice(-2)).toEqual([
    'Skipped 1 test, for what this machine lacks (CI runs them all):',
    `  1 in ${FIXTURE}: ${SKIP_LINE}`,
  ])

  expect(ci.code, ci.output).toBe(1)
  expect(ci.output).toMatch(/^ {2}1 failed$/m)
  expect(ci.output).toContain(
    `MissingCapabilityError: ${SKIP_LINE} (CI=true: nothing may be skipped)`,
  )
  expect(ci.output).not.toMatch(/^ {2}\d+ skipped$/m)
  expect(ci.output).not.toContain('Skipped 1 test')
})
