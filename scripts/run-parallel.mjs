// `node scripts/run-parallel.mjs lint typecheck`: runs those npm scripts at
// once and fails if any fails. Lint and the type check each keep one core
// busy for most of a minute; on CI's two cores, side by side they take the
// time of the longer one. Each script's output is printed whole when it
// ends, so two logs never interleave.
//
// `node scripts/run-parallel.mjs test:unit test:e2e --background check
// test:sim` (`npm test`): the scripts before `--background` run one after
// another, printing as they go, and the first that fails ends that
// sequence. The scripts after it start at once and run beside the whole
// sequence in the background, each printed whole once it has ended; then
// one line each says whether it passed. Work that is not timed (lint, the
// type check, the simulator's virtual time) takes only the CPU the tests
// leave: the unit tests wait on sockets and child processes for a quarter
// of their time, and that is where it runs.
//
// Background means two things on Linux. nice(1) alone is not enough: with
// the kernel's autogroup scheduling (on by default) CPU is shared first
// between sessions, and only within a session by niceness. Chromium, which
// Playwright starts in a session of its own, took no precedence over
// nice-19 work in ours: two nice-19 busy loops beside two busy loops of
// another session got a third of two cores. So a background script gets a
// session of its own (a new autogroup) whose niceness is set to 19 as well
// (/proc/<pid>/autogroup): the same two loops then waited until the others
// had ended. It runs only on CPU nobody else wants.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { constants } from 'node:os'

/** nice(1)'s lowest priority: work that is not timed takes only CPU nothing else wants */
const BACKGROUND_NICENESS = 19

const foreground = []
const beside = []
let niceness = null
let usage = process.argv.length < 3
for (const arg of process.argv.slice(2)) {
  if (arg === '--background') niceness = BACKGROUND_NICENESS
  else if (arg.startsWith('--')) usage = true
  else if (niceness === null) foreground.push(arg)
  else beside.push({ name: arg, niceness })
}
if (usage || foreground.length === 0) {
  console.error('usage: node scripts/run-parallel.mjs <npm script>...   (all at once)')
  console.error('   or: node scripts/run-parallel.mjs <npm script>... --background <npm script>...')
  console.error('       (the first ones in turn, the others beside them at nice 19)')
  process.exit(2)
}

/** Scripts still running, each the leader of a session (and process group) of its own. */
const running = new Set()

/**
 * Lowers the priority of `pid`'s whole autogroup (its session) to `nice`.
 * Without autogroup scheduling the file is missing, and nice(1) suffices.
 */
function lowerAutogroup(pid, nice) {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice))
  } catch (err) {
    if (err.code !== 'ENOENT')
      console.error(`run-parallel: ${pid}'s autogroup kept its priority: ${err.message}`)
  }
}

// Each script runs in a session of its own (a background one must; the
// others too, so that a signal reaches all they started). The terminal's
// Ctrl-C then reaches only this script: a signal that ends it is passed on
// to each script's whole process group.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of running) {
      try {
        process.kill(-child.pid, signal)
      } catch {
        // already gone
      }
    }
    process.exit(128 + constants.signals[signal])
  })
}

/** Runs `npm run name`; `live` prints its output as it comes, else `report` prints it whole. */
function run(name, { live = false, nice = 0 } = {}) {
  const started = Date.now()
  const npm = ['npm', 'run', '--silent', name]
  const [command, ...args] = nice > 0 ? ['nice', '-n', String(nice), ...npm] : npm
  if (live) process.stdout.write(`\n> npm run ${name}\n`)
  const stdio = live ? 'inherit' : 'pipe'
  const child = spawn(command, args, { stdio: ['ignore', stdio, stdio], detached: true })
  if (nice > 0) lowerAutogroup(child.pid, nice)
  running.add(child)
  child.on('exit', () => running.delete(child))
  const out = []
  child.stdout?.on('data', (b) => out.push(b))
  child.stderr?.on('data', (b) => out.push(b))
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const secs = Math.round((Date.now() - started) / 1000)
      const ok = code === 0
      const status = ok ? 'ok' : `failed (${signal ?? `exit ${code}`})`
      const heading = `> npm run ${name} (${secs} s${nice > 0 ? `, niceness ${nice}` : ''})`
      resolve({
        ok,
        line: `npm run ${name}: ${status}, ${secs} s${nice > 0 ? ` at niceness ${nice}` : ''}`,
        report() {
          if (!live) process.stdout.write(`\n${heading}\n${Buffer.concat(out)}`)
          if (!ok) console.error(`npm run ${name} failed (${signal ?? `exit ${code}`})`)
        },
      })
    })
  })
}

/** Runs the scripts in turn, printing as they go, until one fails; the ones not run are said so. */
async function inTurn(names) {
  const results = []
  for (const name of names) {
    if (results.some((r) => !r.ok)) {
      results.push({
        ok: false,
        line: `npm run ${name}: not run (an earlier script failed)`,
        report() {},
      })
      continue
    }
    const result = await run(name, { live: true })
    result.report()
    results.push(result)
  }
  return results
}

const behind = Promise.all(beside.map(({ name, niceness }) => run(name, { nice: niceness })))
const front =
  beside.length > 0
    ? await inTurn(foreground)
    : await Promise.all(foreground.map((name) => run(name, { live: foreground.length === 1 })))
const results = [...front, ...(await behind)]
for (const result of results) if (beside.length === 0 || !front.includes(result)) result.report()
// one line each at the very end: what passed and what failed, after the long logs
if (beside.length > 0) process.stdout.write(`\n${results.map((r) => r.line).join('\n')}\n`)
process.exit(results.every((r) => r.ok) ? 0 : 1)
