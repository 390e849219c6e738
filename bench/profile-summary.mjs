// Where a peer process spent its CPU during the timed run.
//
//   BENCH_CPU_PROF=/tmp/prof npm run bench -- --peers 32
//   node bench/profile-summary.mjs /tmp/prof
//
// For each peer process's profile (CPU.*.<pid>.0.*.cpuprofile, its main
// thread) with a `window.<pid>` mark file (host.ts writes it when the run
// starts and ends), prints the busy seconds inside the run, self time by
// package, and inclusive time of a few frames that matter (a frame counts
// when it is anywhere on the sampled stack).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const FRAMES = [
  'validateIncoming', // a gossip message: open, verify, validate, judge
  'verifyOneShot', // Ed25519 (node:crypto)
  'noise', // transport encryption
  'yamux', // stream multiplexing
  'forwardMessage', // GossipSub forwarding to the mesh
  'net/sync.ts', // anti-entropy sessions
  'stepPeer', // the role cores
  'derivePlan',
  'garbage collector',
]

const dir = process.argv[2]
if (!dir) throw new Error('usage: node bench/profile-summary.mjs <BENCH_CPU_PROF dir>')
const pkgOf = (url, name) => {
  if (!url.includes('node_modules/')) return url.replace(/.*\/(src|bench)\//, '$1/') || name
  const parts = url.replace(/.*node_modules\//, '').split('/')
  return parts.slice(0, parts[0].startsWith('@') ? 2 : 1).join('/')
}
const seconds = (us) => (us / 1e6).toFixed(2)

for (const file of readdirSync(dir).filter((f) => /^CPU\..*\.0\.\d+\.cpuprofile$/.test(f))) {
  const pid = file.split('.')[3]
  const marks = join(dir, `window.${pid}`)
  if (!existsSync(marks)) continue
  const at = Object.fromEntries(
    readFileSync(marks, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ')),
  )
  const [from, to] = [Number(at.start), Number(at.end)]
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'))
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  let t = profile.startTime
  let busy = 0
  const self = new Map()
  const inclusive = new Map(FRAMES.map((f) => [f, 0]))
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i]
    t += dt
    const frame = nodes.get(id).callFrame
    if (t < from || t > to || frame.functionName === '(idle)') return
    busy += dt
    const pkg = pkgOf(frame.url ?? '', frame.functionName)
    self.set(pkg, (self.get(pkg) ?? 0) + dt)
    const stack = []
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const f = nodes.get(cur).callFrame
      stack.push(`${f.functionName}@${f.url}`)
    }
    for (const name of FRAMES)
      if (stack.some((s) => s.includes(name))) inclusive.set(name, inclusive.get(name) + dt)
  })
  console.log(`pid ${pid}: run ${seconds(to - from)} s, busy ${seconds(busy)} s`)
  console.log(`  inclusive: ${[...inclusive].map(([k, v]) => `${k} ${seconds(v)}`).join(', ')}`)
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)
  console.log(`  self: ${top.map(([k, v]) => `${k} ${seconds(v)}`).join(', ')}`)
}
