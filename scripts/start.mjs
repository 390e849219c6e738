// `npm start`: check the command line, build the web app when its sources
// changed, then run the relay and the app server (relay/start.ts) with the
// Node 20 preload.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { tsImport } from 'tsx/esm/api'

// --help and a mistake are answered before any build (a fresh clone's takes
// a while): the options' table is relay/options.ts, the one start.ts parses by
const { optionsOrExit, parseStartArgs, START_USAGE } = await tsImport(
  '../relay/options.ts',
  import.meta.url,
)
optionsOrExit(() => parseStartArgs(process.argv.slice(2)), START_USAGE, 'npm start -- --help')

function newest(path) {
  if (!existsSync(path)) return 0
  const info = statSync(path)
  if (!info.isDirectory()) return info.mtimeMs
  return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))))
}

const built = existsSync('dist/index.html') ? statSync('dist/index.html').mtimeMs : 0
const sources = Math.max(
  newest('src'),
  newest('index.html'),
  newest('public'),
  newest('vite.config.ts'),
)
if (built < sources) {
  console.log('Building the web app…')
  const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const child = spawn(
  process.execPath,
  [
    '--import',
    './scripts/node-preload.mjs',
    '--import',
    'tsx',
    'relay/start.ts',
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
