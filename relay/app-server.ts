/**
 * Serves the built web app (dist/) beside the relay, plus three small JSON
 * documents the app reads from its own origin:
 *   GET /relay.json       the relay's PeerId and multiaddrs, and the other relays of its list
 *   GET /app-config.json  { lanOrigins }: where friends on the LAN can open the app
 *   GET /ice.json         STUN/TURN servers, with fresh short-lived TURN credentials (ice.ts)
 * Static files only, no plan state, no keys.
 *
 * With `tls`, the same port speaks both http and https (the first byte of a
 * connection tells them apart): this machine's own tabs keep using
 * http://127.0.0.1 (already a secure context, no certificate warning), a
 * friend's http request is redirected to https, and WebSocket upgrades (wss)
 * are passed through to the relay, so an https page reaches the relay on the
 * very origin whose certificate its user accepted, and never tries ws://.
 * Plain http passes WebSocket upgrades to the relay too, so a reverse proxy
 * that terminates TLS (deploy/Caddyfile, deploy/nginx.conf) needs only this
 * one port; with `publicUrl`, /relay.json names the relay as wss on it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { connect, createServer as createTcpServer, isIP, type Socket } from 'node:net'
import { Duplex } from 'node:stream'
import { NO_ICE_SERVERS, type IceConfig } from '../src/net/ice-config'
import type { RelayAddrs, RelayInfo } from '../src/net/relay-info'
import { createStaticFiles } from './static-files'

export interface AppServerInit {
  /** the built app (vite build output) */
  dir: string
  host: string
  port: number
  relay: RelayAddrs
  /** the other relays tabs and agents register with as well (other-relays.ts); default none */
  otherRelays?: () => RelayAddrs[]
  /** the https origin a reverse proxy serves this app on: /relay.json names the relay as wss there */
  publicUrl?: URL
  lanOrigins: (port: number) => string[]
  /** the body of /ice.json, made per request (ice.ts); default: no ICE servers */
  ice?: () => IceConfig
  /** serve https too (PEM); WebSocket upgrades then go to `relayWs` */
  tls?: { cert: string; key: string }
  /** the relay's plain WebSocket listener, for wss passed through this port */
  relayWs?: { host: string; port: number }
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

/**
 * The code sandbox's worker (src/sandbox/sandbox.worker.ts) compiles QuickJS,
 * a WebAssembly engine, which the page's policy forbids; it gets its own
 * policy: scripts and WebAssembly from this origin, requests only to this
 * origin (its WebAssembly file), nothing else. The browser's fence around
 * model-written code, beside the worker's own lockdown.
 */
const SANDBOX_WORKER_CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'"
const SANDBOX_WORKER = /^\/assets\/sandbox\.worker-[\w-]+\.js$/

/** The security headers of a static file at `path`. */
function securityHeaders(path: string): Record<string, string> {
  return SANDBOX_WORKER.test(path)
    ? { ...SECURITY_HEADERS, 'Content-Security-Policy': SANDBOX_WORKER_CSP }
    : SECURITY_HEADERS
}

/** The relay's address through `host`:`port`, as an https page there must dial it (wss). */
function secureRelayAddr(host: string, port: number, peerId: string): string | undefined {
  if (host === '' || !/^[a-zA-Z0-9.:-]+$/.test(host)) return undefined
  const family = isIP(host) === 4 ? 'ip4' : isIP(host) === 6 ? 'ip6' : 'dns'
  return `/${family}/${host}/tcp/${port}/tls/ws/p2p/${peerId}`
}

/** The host a request was made to, without port or IPv6 brackets. */
function requestHost(req: IncomingMessage): string {
  return (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '')
}

/**
 * The body of /relay.json for `req`: the relay's own addresses, led by its
 * wss address on the public origin and, for a request over https, on the
 * host that request named; then the other relays of the list.
 */
function relayInfoFor(
  init: AppServerInit,
  req: IncomingMessage,
  secure: boolean,
  port: number,
): RelayInfo {
  const { peerId } = init.relay
  const publicPort = Number(init.publicUrl?.port || 443)
  const leading = [
    init.publicUrl &&
      secureRelayAddr(init.publicUrl.hostname.replace(/^\[|\]$/g, ''), publicPort, peerId),
    secure ? secureRelayAddr(requestHost(req), port, peerId) : undefined,
  ].filter((m): m is string => m !== undefined && !init.relay.multiaddrs.includes(m))
  const info: RelayInfo = { peerId, multiaddrs: [...new Set(leading), ...init.relay.multiaddrs] }
  const others = (init.otherRelays?.() ?? []).filter((r) => r.peerId !== peerId)
  if (others.length > 0) info.relays = others
  return info
}

/** Hands an upgraded (WebSocket) request to the relay's listener, bytes untouched. */
function passToRelay(relay: { host: string; port: number }) {
  return (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const upstream = connect(relay.port, relay.host, () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
      }
      upstream.write(lines.join('\r\n') + '\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    const close = () => {
      socket.destroy()
      upstream.destroy()
    }
    upstream.on('error', close)
    socket.on('error', close)
    upstream.on('close', close)
    socket.on('close', close)
  }
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
  const handle = (secure: boolean) => (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/')
      const page = (req.headers.accept ?? '').includes('text/html')
      if (init.tls !== undefined && !secure && page && !isLoopback(req.socket.remoteAddress)) {
        // a friend typed the http address: the https one is what gives them a
        // secure context (headless agents keep reading the JSON over http)
        const host = req.headers.host ?? `localhost:${port}`
        res.writeHead(308, { Location: `https://${host}${req.url ?? '/'}` })
        return void res.end()
      }
      let reply: { type: string; body: Buffer } | null = null
      if (path === '/relay.json') reply = json(relayInfoFor(init, req, secure, port))
      else if (path === '/app-config.json') reply = json({ lanOrigins: init.lanOrigins(port) })
      else if (path === '/ice.json') reply = json(init.ice?.() ?? NO_ICE_SERVERS)
      if (!reply) {
        // the built app: compressed, cached by kind, no source maps (static-files.ts)
        const file = await files.get(path, req.headers['accept-encoding'])
        if (!file) return void res.writeHead(404, SECURITY_HEADERS).end()
        return void res
          .writeHead(file.status, { ...securityHeaders(path), ...file.headers })
          .end(file.body)
      }
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': reply.type,
        // no-store: /ice.json holds credentials, and all three change with the server's options
        'Cache-Control': 'no-store',
      })
      res.end(reply.body)
    })().catch(() => res.writeHead(500).end())
  }

  const http: Server = createServer(handle(false))
  const https =
    init.tls && createHttpsServer({ cert: init.tls.cert, key: init.tls.key }, handle(true))
  if (init.relayWs !== undefined) {
    http.on('upgrade', passToRelay(init.relayWs))
    https?.on('upgrade', passToRelay(init.relayWs))
  }
  // one port, two protocols: a TLS connection starts with a handshake record (0x16)
  const listener =
    https === undefined
      ? http
      : createTcpServer((socket) => {
          socket.once('data', (first: Buffer) => {
            socket.pause()
            socket.unshift(first)
            if (first[0] !== TLS_HANDSHAKE) http.emit('connection', socket)
            // TLS reads a real socket's handle directly and would miss the byte
            // put back above; through a stream wrapper it reads the stream
            else https.emit('connection', Duplex.from({ readable: socket, writable: socket }))
            socket.resume()
          })
          socket.on('error', () => socket.destroy())
        })
  await new Promise<void>((ok, fail) => {
    listener.once('error', fail)
    listener.listen(init.port, init.host, () => ok())
  })
  const address = listener.address()
  if (address && typeof address === 'object') port = address.port
  return {
    port,
    close: () =>
      new Promise((ok) => {
        http.closeAllConnections()
        https?.closeAllConnections()
        listener.close(() => ok())
      }),
  }
}

/** The first byte of a TLS ClientHello record. */
const TLS_HANDSHAKE = 0x16

function isLoopback(address: string | undefined): boolean {
  return address !== undefined && /^(127\.|::1$|::ffff:127\.)/.test(address)
}
