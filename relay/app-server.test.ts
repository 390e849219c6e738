import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { serveApp, type AppServer } from './app-server'
import type { IceConfig } from '../src/net/ice-config'
import { iceConfig, TURN_CREDENTIAL_TTL_S } from './ice'
import { loadOrCreateTlsCert } from './tls'

const RELAY_ID = '12D3KooWM3D1J9MBUMYYG7o8cHMJvH9qGBtbqbvMjpbS3SXzzLyp'
let dir: string
let app: AppServer
let relayWs: WebSocketServer

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-app-'))
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>app</title>')
  // stands in for the relay's WebSocket listener: echoes what it gets
  relayWs = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  relayWs.on('connection', (ws) => ws.on('message', (m) => ws.send(`echo ${String(m)}`)))
  await new Promise((ok) => relayWs.once('listening', ok))
  const tls = await loadOrCreateTlsCert(join(dir, 'tls'), ['127.0.0.1'])
  app = await serveApp({
    dir,
    host: '127.0.0.1',
    port: 0,
    relay: { peerId: RELAY_ID, multiaddrs: [`/ip4/127.0.0.1/tcp/9090/ws/p2p/${RELAY_ID}`] },
    lanOrigins: () => [],
    ice: () => iceConfig({ urls: ['turn:203.0.113.1:3478'], secret: 'not-for-tabs' }, Date.now()),
    tls,
    relayWs: { host: '127.0.0.1', port: (relayWs.address() as { port: number }).port },
  })
})
afterAll(async () => {
  await app.close()
  relayWs.close()
  await rm(dir, { recursive: true, force: true })
})

function get(
  scheme: 'http' | 'https',
  path: string,
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  const request = scheme === 'http' ? httpRequest : httpsRequest
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: app.port,
        path,
        rejectUnauthorized: false,
        headers: { accept: 'text/html' },
      },
      (res) => {
        let body = ''
        res.on('data', (c: Buffer) => (body += c.toString()))
        res.on('end', () => ok({ status: res.statusCode ?? 0, body, headers: res.headers }))
      },
    )
    req.on('error', fail)
    req.end()
  })
}

describe('the app server with --https', () => {
  it('speaks http and https on one port (this machine keeps plain http)', async () => {
    const plain = await get('http', '/')
    const secure = await get('https', '/')
    expect(plain.status).toBe(200)
    expect(secure.body).toEqual(plain.body)
    expect(secure.status).toEqual(plain.status)
  })

  it('tells an https page to reach the relay over wss on the same origin, first', async () => {
    const info = JSON.parse((await get('https', '/relay.json')).body) as { multiaddrs: string[] }
    expect(info.multiaddrs[0]).toBe(`/ip4/127.0.0.1/tcp/${app.port}/tls/ws/p2p/${RELAY_ID}`)
    // over http, nothing changes
    const plain = JSON.parse((await get('http', '/relay.json')).body) as { multiaddrs: string[] }
    expect(plain.multiaddrs).toEqual([`/ip4/127.0.0.1/tcp/9090/ws/p2p/${RELAY_ID}`])
  })

  it('passes wss through to the relay, bytes untouched', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${app.port}/`, { rejectUnauthorized: false })
    const reply = await new Promise<string>((ok, fail) => {
      ws.once('open', () => ws.send('hello'))
      ws.once('message', (m) => ok(String(m)))
      ws.once('error', fail)
    })
    ws.close()
    expect(reply).toBe('echo hello')
  })
})

describe('/ice.json', () => {
  it('hands out a fresh short-lived TURN credential, never the secret, never cached', async () => {
    const first = JSON.parse((await get('http', '/ice.json')).body) as IceConfig
    expect(first.iceServers[1]).toMatchObject({ urls: ['turn:203.0.113.1:3478'] })
    expect(first.iceServers[1]?.username).toMatch(/^\d+:murmuration$/)
    expect(first.expiresAt).toBeGreaterThan(Date.now())
    expect(first.expiresAt! - Date.now()).toBeLessThanOrEqual(TURN_CREDENTIAL_TTL_S * 1000)
    const raw = await get('https', '/ice.json')
    expect(raw.body).not.toContain('not-for-tabs')
    expect(raw.headers['cache-control']).toBe('no-store')
  })
})

describe('behind a reverse proxy, with other relays (--public-url, --relay)', () => {
  const OTHER = '12D3KooWQhjarUFZ3AGcpwuxsu6NZ4YBQRNzwBUE9imFXv6V3J6f'
  const other = {
    peerId: OTHER,
    multiaddrs: [`/dns/relay2.example.org/tcp/443/tls/ws/p2p/${OTHER}`],
  }
  let proxied: AppServer
  let others: Array<typeof other>

  beforeAll(async () => {
    others = [other]
    proxied = await serveApp({
      dir,
      host: '127.0.0.1',
      port: 0,
      relay: { peerId: RELAY_ID, multiaddrs: [`/ip4/127.0.0.1/tcp/9090/ws/p2p/${RELAY_ID}`] },
      otherRelays: () => others,
      publicUrl: new URL('https://murmuration.example.org'),
      lanOrigins: () => [],
      relayWs: { host: '127.0.0.1', port: (relayWs.address() as { port: number }).port },
    })
  })
  afterAll(() => proxied.close())

  const relayJson = async () => {
    const res = await fetch(`http://127.0.0.1:${proxied.port}/relay.json`)
    return (await res.json()) as { multiaddrs: string[]; relays?: unknown }
  }

  it('names the relay as wss on the public origin first, then the other relays as they are now', async () => {
    expect(await relayJson()).toEqual({
      peerId: RELAY_ID,
      multiaddrs: [
        `/dns/murmuration.example.org/tcp/443/tls/ws/p2p/${RELAY_ID}`,
        `/ip4/127.0.0.1/tcp/9090/ws/p2p/${RELAY_ID}`,
      ],
      relays: [other],
    })
    // a relay that is not reachable (yet) is left out, and the field with it
    others = []
    expect((await relayJson()).relays).toBeUndefined()
    others = [other]
  })

  it('passes WebSocket upgrades over plain http to the relay (the proxy terminated TLS)', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${proxied.port}/`)
    const reply = await new Promise<string>((ok, fail) => {
      ws.once('open', () => ws.send('through the proxy'))
      ws.once('message', (m) => ok(String(m)))
      ws.once('error', fail)
    })
    ws.close()
    expect(reply).toBe('echo through the proxy')
  })
})
