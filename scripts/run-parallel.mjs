// `node scripts/run-parallel.mjs lint typecheck`: runs those npm scripts at
// once and fails if any fails. Lint and the type check each keep one core
// busy for most of a minute; on CI's two cores, side by side they take the
// time of the longer one. Each script's output is printed whole when it
// ends, so two logs never interleave.
import { spawn } from 'node:child_process'

const names = process.argv.slice(2)
if (names.length === 0) {
  console.error('usage: node scripts/run-parallel.mjs <npm script>...')
  process.exit(2)
}

function run(name) {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] })
    const out = []
    child.stdout.on('data', (b) => out.push(b))
    child.stderr.on('data', (b) => out.push(b))
    child.on('close', (code, signal) => {
      const secs = ((Date.now() - started) / 1000).toFixed(0)
      process.stdout.write(`\n> npm run ${name} (${secs} s)\n`)
      process.stdout.write(Buffer.concat(out))
      if (code !== 0) console.error(`npm run ${name} failed (${signal ?? `exit ${code}`})`)
      resolve(code === 0)
    })
  })
}

const results = await Promise.all(names.map(run))
process.exit(results.every(Boolean) ? 0 : 1)
