// The headless agent, built: src/cli/agent.ts bundled by esbuild into
// dist-cli/, so `npm run agent` starts in a fraction of a second instead of
// compiling the TypeScript on every start (tsx took 3 to 11 s). Our sources
// are bundled; packages stay in node_modules (imported as they are).
//
// `node scripts/build-cli.mjs` builds; scripts/agent.mjs builds on start
// when a source is newer than the bundle (as scripts/start.mjs does for the
// web app), and `npm install` builds it once (postinstall).
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
/** What the bundle is made of: newer files here mean it is rebuilt. */
const SOURCES = ['src', 'relay', 'package.json', 'scripts/build-cli.mjs']

function newest(path) {
  if (!existsSync(path)) return 0
  const info = statSync(path)
  if (!info.isDirectory()) return info.mtimeMs
  return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))))
}

/** The bundle is missing or older than a source it is made of. */
export function cliIsStale() {
  if (!existsSync(CLI_ENTRY)) return true
  const built = statSync(CLI_ENTRY).mtimeMs
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
    entryPoints: { agent: join(ROOT, 'src/cli/agent.ts') },
    outdir: CLI_OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // the run itself (libp2p and all) is a chunk of its own, loaded only to run:
    // --help and a mistake on the command line never load it
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
  const entries = new Set([CLI_ENTRY, `${CLI_ENTRY}.map`])
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
    console.log(`built ${relative(ROOT, CLI_ENTRY)} in ${Date.now() - started} ms`)
  } catch (err) {
    // --soft (npm install's postinstall): the agent builds itself when started,
    // so a build that cannot be made now must not fail the install
    if (!process.argv.includes('--soft')) throw err
    console.warn(
      'could not build the agent now (see above); `npm run agent` builds it when started',
    )
  }
}
