// How fast the agent answers --help and a bad flag: the built agent
// (scripts/agent.mjs, as `npm run agent` runs it) against the same sources
// compiled on the fly by tsx (as `npm run agent` ran them before). Prints
// the median wall time of RUNS runs each, and the machine's load, which
// these figures follow closely: a benchmark, not a test.
//
//   node scripts/bench-cli-start.mjs
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import { buildCli, cliIsStale } from './build-cli.mjs'

/** Runs of each command: enough for a median that one slow start does not move. */
const RUNS = 5

const CASES = [
  ['built, --help', ['scripts/agent.mjs', '--help']],
  ['built, a bad flag', ['scripts/agent.mjs', '--bogus']],
  [
    'tsx, --help',
    ['--import', './scripts/node-preload.mjs', '--import', 'tsx', 'src/cli/agent.ts', '--help'],
  ],
]

/** CPU seconds of a child, from GNU time when the machine has it: figures a busy machine moves less. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null

function once(args) {
  const started = process.hrtime.bigint()
  const run = TIME
    ? spawnSync(TIME, ['-f', 'CPU %U %S', process.execPath, ...args], { encoding: 'utf8' })
    : spawnSync(process.execPath, args, { stdio: 'ignore' })
  const wall = Number(process.hrtime.bigint() - started) / 1e6
  const cpu = /CPU ([\d.]+) ([\d.]+)/.exec(run.stderr ?? '')
  return { wall, cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : null }
}

if (cliIsStale()) await buildCli()
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(
  `load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')} on this machine`,
)
for (const [name, args] of CASES) {
  const runs = Array.from({ length: RUNS }, () => once(args))
  const wall = median(runs.map((r) => r.wall))
  const cpu = runs[0].cpu === null ? '' : `, CPU ${Math.round(median(runs.map((r) => r.cpu)))} ms`
  console.log(`${name.padEnd(20)} median wall ${Math.round(wall)} ms${cpu}`)
}
