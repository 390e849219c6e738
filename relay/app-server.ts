/**
 * Serves the built web app (dist/) beside the relay, plus two small JSON
 * documents the app reads from its own origin:
 *   GET /relay.json       the relay's PeerId and multiaddrs
 *   GET /app-config.json  { lanOrigins }: where friends on the LAN can open the app
 * Static files only, no plan state, no keys.
 */
import { createServer, type Server } from 'node:http'
import { createStaticFiles } from './static-files'

export interface AppServerInit {
  /** the built app (vite build output) */
  dir: string
  host: string
  port: number
  relay: { peerId: string; multiaddrs: string[] }
  lanOrigins: (port: number) => string[]
  /** serve source maps (static-files.ts); default: MURMURATION_SOURCE_MAPS=1 in the environment */
  sourceMaps?: boolean
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
  const files = createStaticFiles({
    dir: init.dir,
    sourceMaps: init.sourceMaps ?? process.env.MURMURATION_SOURCE_MAPS === '1',
  })
  let port = init.port
  const json = (body: unknown) => ({
    type: 'application/json',
    body: Buffer.from(JSON.stringify(body)),
  })
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/')
      const reply =
        path === '/relay.json'
          ? json(init.relay)
          : path === '/app-config.json'
            ? json({ lanOrigins: init.lanOrigins(port) })
            : null
      if (!reply) {
        // the built app: compressed, cached by kind, no source maps (static-files.ts)
        const file = await files.get(path, req.headers['accept-encoding'])
        if (!file) return void res.writeHead(404, SECURITY_HEADERS).end()
        return void res
          .writeHead(file.status, { ...SECURITY_HEADERS, ...file.headers })
          .end(file.body)
      }
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': reply.type,
        'Cache-Control': 'no-cache',
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
