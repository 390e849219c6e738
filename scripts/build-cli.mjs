// The Node commands, built: the headless agent (src/cli/agent.ts), the relay
// (relay/main.ts, `npm run relay`) and the app server with its relay
// (relay/start.ts, `npm start`), bundled by esbuild into dist-cli/, so they
// start in a fraction of a second instead of compiling the TypeScript on
// every start (tsx took 3 to 11 s for the agent; for the relay it costs 1.4
// CPU-s of its 2.1 at each start). Our sources are bundled; packages stay in
// node_modules (imported as they are).
//
// `node scripts/build-cli.mjs` builds; scripts/agent.mjs, scripts/relay.mjs
// and scripts/start.mjs build on start when a source is newer than the
// bundle (as start.mjs does for the web app), and `npm install` builds it
// once (postinstall).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const CLI_OUT_DIR = join(ROOT, 'dist-cli')
export const CLI_ENTRY = join(CLI_OUT_DIR, 'agent.mjs')
/** `npm run relay`: relay/main.ts (run with scripts/node-preload.mjs imported first) */
export const RELAY_ENTRY = join(CLI_OUT_DIR, 'relay.mjs')
/** `npm start`'s server: relay/start.ts (run with scripts/node-preload.mjs imported first) */
export const START_ENTRY = join(CLI_OUT_DIR, 'start.mjs')
/** relay/options.ts: scripts/start.mjs checks `npm start`'s command line before it builds the app */
export const OPTIONS_ENTRY = join(CLI_OUT_DIR, 'options.mjs')
const ENTRY_POINTS = {
  agent: join(ROOT, 'src/cli/agent.ts'),
  relay: join(ROOT, 'relay/main.ts'),
  start: join(ROOT, 'relay/start.ts'),
  options: join(ROOT, 'relay/options.ts'),
}
const ENTRIES = [CLI_ENTRY, RELAY_ENTRY, START_ENTRY, OPTIONS_ENTRY]
/** What the bundle is made of: newer files here mean it is rebuilt. */
const SOURCES = ['src', 'relay', 'package.json', 'scripts/build-cli.mjs']

function newest(path) {
  if (!existsSync(path)) return 0
  const info = statSync(path)
  if (!info.isDirectory()) return info.mtimeMs
  return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))))
}

/** An entry is missing, or older than a source it is made of. */
export function cliIsStale() {
  if (!ENTRIES.every((entry) => existsSync(entry))) return true
  const built = Math.min(...ENTRIES.map((entry) => statSync(entry).mtimeMs))
  return SOURCES.some((path) => newest(join(ROOT, path)) > built)
}

/**
 * A module that finds files next to itself (`new URL('./x.ts', import.meta.url)`:
 * the code sandbox's worker) keeps finding them once bundled: its
 * import.meta.url is rewritten to the source file's own URL, relative to the
 * bundle so a moved clone still works.
 */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8')
      if (!text.includes('import.meta.url')) return undefined
      const fromBundle = relative(CLI_OUT_DIR, args.path).split('\\').join('/')
      const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' }
    })
  },
}

/** Old chunks are removed once this old: an agent started from them has loaded them long ago. */
const OLD_CHUNK_MS = 60 * 60_000

/**
 * Each file is written whole under a temporary name and renamed into place,
 * the chunks before the entry that imports them: agents started while
 * another builds (several at once from a script) never read half a file,
 * and two builds at once write the same bytes.
 */
function writeAtomically(path, contents) {
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, contents)
  renameSync(temp, path)
}

export async function buildCli() {
  const { build } = await import('esbuild')
  const result = await build({
    write: false,
    entryPoints: ENTRY_POINTS,
    outdir: CLI_OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // the run itself (libp2p and all) is a chunk of its own, loaded only to run:
    // --help and a mistake on the command line never load it; the commands
    // share their common code
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [sourceUrls],
  })
  mkdirSync(CLI_OUT_DIR, { recursive: true })
  const files = result.outputFiles
  const entries = new Set(ENTRIES.flatMap((entry) => [entry, `${entry}.map`]))
  for (const file of files.filter((f) => !entries.has(f.path)))
    writeAtomically(file.path, file.contents)
  for (const file of files.filter((f) => entries.has(f.path)))
    writeAtomically(file.path, file.contents)
  const made = new Set(files.map((f) => f.path))
  for (const name of readdirSync(CLI_OUT_DIR)) {
    const path = join(CLI_OUT_DIR, name)
    if (!made.has(path) && Date.now() - statSync(path).mtimeMs > OLD_CHUNK_MS) rmSync(path)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now()
  try {
    await buildCli()
    console.log(
      `built ${ENTRIES.map((entry) => relative(ROOT, entry)).join(', ')} in ${Date.now() - started} ms`,
    )
  } catch (err) {
    // --soft (npm install's postinstall): each command builds it when started,
    // so a build that cannot be made now must not fail the install
    if (!process.argv.includes('--soft')) throw err
    console.warn(
      'could not build the agent and the relay now (see above); `npm run agent`, `npm run relay` and `npm start` build them when started',
    )
  }
}
