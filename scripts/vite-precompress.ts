/**
 * A build step: writes `<file>.br` and `<file>.gz` beside every text file
 * of the build, at the strongest settings, so the app server
 * (relay/static-files.ts) sends compressed bytes without compressing on
 * the fly.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants as zlib, gzip } from 'node:zlib'
import type { Plugin } from 'vite'
import { MIN_COMPRESS_BYTES } from '../relay/static-files.js'

/**
 * Text files a visitor downloads, and WebAssembly (the code sandbox's engine: 503 kB, 199 kB
 * as brotli 11, 220 kB at the on-the-fly quality). Not source maps: they are served only to a
 * developer who asks, compressed on the fly then.
 */
const TEXT = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.svg',
  '.txt',
  '.webmanifest',
  '.wasm',
])

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* files(path)
    else yield path
  }
}

export async function precompressDir(dir: string): Promise<number> {
  let count = 0
  for await (const file of files(dir)) {
    if (!TEXT.has(extname(file)) || (await stat(file)).size < MIN_COMPRESS_BYTES) continue
    const data = await readFile(file)
    const [br, gz] = await Promise.all([
      promisify(brotliCompress)(data, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
          [zlib.BROTLI_PARAM_SIZE_HINT]: data.length,
        },
      }),
      promisify(gzip)(data, { level: 9 }),
    ])
    await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gz)])
    count++
  }
  return count
}

/** The vite plugin: precompress the output directory once the bundle is written. */
export function precompress(): Plugin {
  let outDir = 'dist'
  return {
    name: 'murmuration-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir
    },
    async closeBundle() {
      await precompressDir(outDir)
    },
  }
}
