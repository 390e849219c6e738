/**
 * The built app's files, as a browser should get them: compressed (brotli
 * or gzip, by Accept-Encoding), with caching headers that fit hashed
 * assets, and without source maps unless asked for.
 *
 * `vite build` writes `<file>.br` and `<file>.gz` beside each text asset
 * (scripts/precompress.ts, at the strongest settings); those are served as
 * they are. A file without them (a dist built before, a file added by hand)
 * is compressed on first request at a fast setting and kept in memory.
 *
 * Pure file logic: no HTTP server here, so the app server (http or https)
 * only wires `get` to its requests.
 */
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants as zlib, gzip } from 'node:zlib'

const brotli = promisify(brotliCompress)
const gz = promisify(gzip)

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

/** Types worth compressing: text. PNG and WOFF2 are compressed already. */
const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.map',
  '.svg',
  '.wasm',
  '.txt',
  '.webmanifest',
])

/**
 * Below this, compression costs more than it saves (headers, a CPU round)
 * and the response fits one TCP packet anyway.
 */
export const MIN_COMPRESS_BYTES = 1_024

/**
 * Brotli quality for on-the-fly compression. The build's precompressed files
 * use 11 (smallest); 5 compresses the 700 kB worker in tens of milliseconds
 * and is still well below gzip -9 in size.
 */
export const ON_THE_FLY_BROTLI_QUALITY = 5

/** Hashed assets never change under the same name: cache them for a year. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable'
/** Everything else (index.html, favicon) must be revalidated, so a rebuild is seen at once. */
export const REVALIDATE_CACHE = 'no-cache'

export type Encoding = 'br' | 'gzip' | 'identity'

/**
 * The encoding to send, from an Accept-Encoding header: brotli when
 * accepted, else gzip, else none. `q=0` refuses an encoding.
 */
export function pickEncoding(acceptEncoding: string | undefined): Encoding {
  const accepted = new Map<string, number>()
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    accepted.set(name, q === undefined ? 1 : Number(q))
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0
  if (ok('br')) return 'br'
  if (ok('gzip')) return 'gzip'
  return 'identity'
}

export interface StaticFilesInit {
  /** the built app (vite build output) */
  dir: string
  /**
   * Serve `*.map` files and point browsers at them (SourceMap header).
   * Default false: visitors do not download megabytes of maps they never
   * look at; a developer starts the server with them on.
   */
  sourceMaps?: boolean
}

export interface StaticReply {
  status: 200
  headers: Record<string, string>
  body: Buffer
}

export interface StaticFiles {
  /**
   * The reply for a request path (already URL-decoded, without the query),
   * or null when there is no such file (the caller answers 404). Paths
   * without an extension fall back to index.html (client-side routes).
   */
  get(path: string, acceptEncoding: string | undefined): Promise<StaticReply | null>
}

interface Variants {
  mtimeMs: number
  identity: Buffer
  br?: Buffer
  gzip?: Buffer
}

async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file)
  } catch {
    return undefined
  }
}

export function createStaticFiles(init: StaticFilesInit): StaticFiles {
  const root = resolve(init.dir)
  const cache = new Map<string, Variants>()

  /** The file a path names, or null (outside the root, absent, a map when maps are off). */
  async function locate(path: string): Promise<{ file: string; mtimeMs: number } | null> {
    let file = normalize(join(root, path))
    if (file !== root && !file.startsWith(root + sep)) return null
    if (extname(file) === '.map' && !init.sourceMaps) return null
    try {
      let info = await stat(file)
      if (info.isDirectory()) {
        file = join(file, 'index.html')
        info = await stat(file)
      }
      return { file, mtimeMs: info.mtimeMs }
    } catch {
      if (extname(path)) return null
      const index = join(root, 'index.html')
      const info = await stat(index).catch(() => null)
      return info ? { file: index, mtimeMs: info.mtimeMs } : null
    }
  }

  async function variants(file: string, mtimeMs: number): Promise<Variants> {
    const cached = cache.get(file)
    if (cached && cached.mtimeMs === mtimeMs) return cached
    const identity = await readFile(file)
    const entry: Variants = { mtimeMs, identity }
    if (COMPRESSIBLE.has(extname(file)) && identity.length >= MIN_COMPRESS_BYTES) {
      entry.br =
        (await readIfExists(`${file}.br`)) ??
        (await brotli(identity, {
          params: {
            [zlib.BROTLI_PARAM_QUALITY]: ON_THE_FLY_BROTLI_QUALITY,
            [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length,
          },
        }))
      entry.gzip = (await readIfExists(`${file}.gz`)) ?? (await gz(identity, { level: 9 }))
    }
    cache.set(file, entry)
    return entry
  }

  return {
    async get(path, acceptEncoding) {
      const found = await locate(path)
      if (!found) return null
      const entry = await variants(found.file, found.mtimeMs)
      const ext = extname(found.file)
      const wanted = pickEncoding(acceptEncoding)
      const encoding: Encoding = wanted !== 'identity' && entry[wanted] ? wanted : 'identity'
      const body = encoding === 'identity' ? entry.identity : entry[encoding]!
      const hashed =
        path.startsWith('/assets/') && found.file.startsWith(join(root, 'assets') + sep)
      const headers: Record<string, string> = {
        'Content-Type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
        'Content-Length': String(body.length),
        'Cache-Control': hashed ? IMMUTABLE_CACHE : REVALIDATE_CACHE,
      }
      if (entry.br || entry.gzip) headers.Vary = 'Accept-Encoding'
      if (encoding !== 'identity') headers['Content-Encoding'] = encoding
      if (init.sourceMaps && (ext === '.js' || ext === '.css')) headers.SourceMap = `${path}.map`
      return { status: 200, headers, body }
    },
  }
}
