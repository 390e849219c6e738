/**
 * Serves the built web app (dist/) beside the relay, plus two small JSON
 * documents the app reads from its own origin:
 *   GET /relay.json       the relay's PeerId and multiaddrs
 *   GET /app-config.json  { lanOrigins }: where friends on the LAN can open the app
 * Static files only, no plan state, no keys.
 */
import { createServer, type Server } from 'node:http'
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize, resolve } from 'node:path'

const CONTENT_TYPES: Record<string, string> = {
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
}

export interface AppServerInit {
  /** the built app (vite build output) */
  dir: string
  host: string
  port: number
  relay: { peerId: string; multiaddrs: string[] }
  lanOrigins: (port: number) => string[]
}

export interface AppServer {
  port: number
  close(): Promise<void>
}

/**
 * Security headers for a page that runs other peers' text through Markdown:
 * scripts only from this origin; connections to any http(s)/ws(s) endpoint
 * (the relay, the LLM provider the user chose: Anthropic, OpenAI, or a
 * local server on the LAN).
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; " +
    "img-src 'self' data: blob:; connect-src 'self' http: https: ws: wss:; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
}

export async function serveApp(init: AppServerInit): Promise<AppServer> {
  const root = resolve(init.dir)
  let port = init.port
  const json = (body: unknown) => ({
    type: 'application/json',
    body: Buffer.from(JSON.stringify(body)),
  })
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/')
      let reply: { type: string; body: Buffer } | null = null
      if (path === '/relay.json') reply = json(init.relay)
      else if (path === '/app-config.json') reply = json({ lanOrigins: init.lanOrigins(port) })
      else {
        let file = normalize(join(root, path))
        if (!file.startsWith(root)) return void res.writeHead(403).end()
        try {
          if ((await stat(file)).isDirectory()) file = join(file, 'index.html')
          reply = {
            type: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
            body: await readFile(file),
          }
        } catch {
          // client-side routes fall back to the app
          if (!extname(path))
            reply = {
              type: CONTENT_TYPES['.html']!,
              body: await readFile(join(root, 'index.html')),
            }
        }
      }
      if (!reply) return void res.writeHead(404, SECURITY_HEADERS).end()
      const immutable = path.startsWith('/assets/')
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': reply.type,
        'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      })
      res.end(reply.body)
    })().catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(init.port, init.host, () => ok())
  })
  const address = server.address()
  if (address && typeof address === 'object') port = address.port
  return {
    port,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}
