/**
 * The Node code sandbox (src/sandbox/sandbox.node.ts), measured:
 *   node --import ./scripts/node-preload.mjs --import tsx bench/sandbox.ts
 *
 * Cold: a new sandbox's first run (a worker thread starts, registers tsx,
 * compiles the 0.5 MB QuickJS WebAssembly and warms it), several times.
 * Warm: later runs of a one-line program on a started sandbox (each run
 * still gets a fresh engine instance). Then a few workloads a model might
 * write, for what the 5 s limit buys. The last line is JSON.
 */
import { createNodeSandbox } from '../src/sandbox/sandbox.node.js'
import type { CodeRun } from '../src/sandbox/types'

const COLD_SAMPLES = 5
const WARM_SAMPLES = 30
const WORKLOADS: Record<string, string> = {
  'sum of 1e6 numbers': 'let s = 0; for (let i = 0; i < 1e6; i++) s += i; console.log(s)',
  'sort 1e5 random numbers':
    'const a = Array.from({ length: 1e5 }, Math.random); a.sort((x, y) => x - y); console.log(a[0] <= a[1])',
  '10k console.log lines': 'for (let i = 0; i < 10000; i++) console.log("line", i)',
  'JSON round trip of 1e4 objects':
    'const o = Array.from({ length: 1e4 }, (_, i) => ({ i, s: String(i) })); console.log(JSON.parse(JSON.stringify(o)).length)',
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}

async function timed(run: () => Promise<CodeRun>): Promise<{ ms: number; run: CodeRun }> {
  const started = performance.now()
  const result = await run()
  if (result.exit !== 0) throw new Error(`the run failed: ${result.error}`)
  return { ms: performance.now() - started, run: result }
}

const request = { language: 'javascript' as const, code: 'console.log(6 * 7)' }
const cold: number[] = []
for (let i = 0; i < COLD_SAMPLES; i++) {
  const sandbox = createNodeSandbox()
  cold.push((await timed(() => sandbox.run(request))).ms)
  sandbox.close()
}
const sandbox = createNodeSandbox()
await sandbox.run(request)
const warm: number[] = []
for (let i = 0; i < WARM_SAMPLES; i++) warm.push((await timed(() => sandbox.run(request))).ms)
const workloads: Record<string, { ms: number; guestMs: number }> = {}
for (const [name, code] of Object.entries(WORKLOADS)) {
  const { ms, run } = await timed(() => sandbox.run({ language: 'javascript', code }))
  workloads[name] = { ms: Math.round(ms), guestMs: run.durationMs }
}
sandbox.close()

cold.sort((a, b) => a - b)
warm.sort((a, b) => a - b)
const figures = {
  coldMedianMs: Math.round(quantile(cold, 0.5)),
  coldMaxMs: Math.round(cold.at(-1) as number),
  warmMedianMs: Math.round(quantile(warm, 0.5)),
  warmP95Ms: Math.round(quantile(warm, 0.95)),
  workloads,
}
console.log(
  `cold start (first run of a new sandbox): median ${figures.coldMedianMs} ms, max ${figures.coldMaxMs} ms`,
)
console.log(`warm run: median ${figures.warmMedianMs} ms, p95 ${figures.warmP95Ms} ms`)
for (const [name, { ms, guestMs }] of Object.entries(workloads))
  console.log(`${name}: ${ms} ms (in the guest ${guestMs} ms)`)
console.log(JSON.stringify(figures))
