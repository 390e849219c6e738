// `npm start`: check the command line, build the web app when its sources
// changed, then run the relay and the app server (relay/start.ts, built:
// scripts/build-cli.mjs) with the Node 20 preload.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildCli, cliIsStale, OPTIONS_ENTRY, START_ENTRY } from './build-cli.mjs'

// the Node commands are built at `npm install`; again here if a source changed
if (cliIsStale()) await buildCli()

// --help and a mistake are answered before the web app's build (a fresh
// clone's takes a while): the options' table is relay/options.ts, the one
// start.ts parses by
const { optionsOrExit, parseStartArgs, START_USAGE } = await import(
  pathToFileURL(OPTIONS_ENTRY).href
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
  ['--import', './scripts/node-preload.mjs', START_ENTRY, ...process.argv.slice(2)],
  { stdio: 'inherit' },
)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
