/**
 * A public relay behind a reverse proxy (docs/guide/network.md, "Run a public relay"):
 * `npm start -- --public-url https://NAME` on loopback behind nginx running
 * deploy/nginx.conf (fixtures/nginx.ts: only ports, name and certificate are
 * the test's), with a self-signed certificate the test makes for the name
 * (`localhost` here, the one public-looking name loopback has). Two people's
 * Chromiums open the app over https, reach the relay over wss through the
 * proxy only, and link to each other; http is redirected to https.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { request, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from '@playwright/test'
import { loadOrCreateTlsCert } from '../relay/tls'
import { requireRoot } from './fixtures/capabilities'
import { startNginx, type Nginx } from './fixtures/nginx'
import { freePort } from './fixtures/ports'
import { serve, type Served } from './fixtures/serve'
import { testRoom } from './fixtures/rooms'
import { ACTION_TIMEOUT_MS, expect, test } from './fixtures/ui-app'
import { pickRole, waitForPeers } from './fixtures/ui-steps'

const NAME = 'localhost'

requireRoot(test, { needs: ['nginx'] })

test('behind nginx with deploy/nginx.conf: tabs load the app over https, reach the relay over wss through the proxy, and link', async ({
  browser,
}) => {
  test.setTimeout(180_000)
  const started = Date.now()
  const certDir = mkdtempSync(join(tmpdir(), 'murm-public-cert-'))
  const [httpsPort, httpPort] = [await freePort(), await freePort()]
  const publicUrl = `https://${NAME}:${httpsPort}`
  const contexts: BrowserContext[] = []
  let app: Served | undefined
  let nginx: Nginx | undefined
  try {
    const cert = await loadOrCreateTlsCert(certDir, [NAME, '127.0.0.1'])
    app = await serve(['--public-url', publicUrl])
    nginx = await startNginx({
      appPort: Number(new URL(app.url).port),
      httpsPort,
      httpPort,
      serverName: NAME,
      certPath: cert.certPath,
      keyPath: cert.keyPath,
    })

    // http on the proxy's port 80 goes to https (a real deployment's 443)
    const plain = await new Promise<IncomingMessage>((ok, fail) =>
      request(
        { host: '127.0.0.1', port: httpPort, path: '/?role=executor', headers: { host: NAME } },
        ok,
      )
        .on('error', fail)
        .end(),
    )
    plain.resume()
    expect(plain.statusCode).toBe(301)
    expect(plain.headers.location).toBe(`https://${NAME}/?role=executor`)

    const room = testRoom(`public-${Date.now().toString(36)}`)
    const sockets: string[] = []
    const tabs: Page[] = []
    for (const [person, role] of [
      ['host', 'decomposer'],
      ['friend', 'executor'],
    ] as const) {
      // the person accepted the certificate (ignoreHTTPSErrors stands for that)
      const context = await browser.newContext({ ignoreHTTPSErrors: true })
      contexts.push(context)
      context.setDefaultTimeout(ACTION_TIMEOUT_MS)
      await context.grantPermissions(['microphone'], { origin: publicUrl })
      const page = await context.newPage()
      page.on('websocket', (ws) => sockets.push(`${person} ${ws.url()}`))
      await page.goto(`${publicUrl}/`)
      await pickRole(page, room, role)
      tabs.push(page)
    }
    for (const page of tabs) await waitForPeers(page, 1)
    console.log(`two tabs linked through nginx ${Date.now() - started} ms after the test started`)

    // the relay, for pages of the public origin: wss on it, nothing else
    const info = (await tabs[0]!.evaluate(async () => (await fetch('/relay.json')).json())) as {
      peerId: string
      multiaddrs: string[]
    }
    expect(info.multiaddrs[0]).toBe(`/dns/${NAME}/tcp/${httpsPort}/tls/ws/p2p/${info.peerId}`)
    expect(sockets.length).toBeGreaterThanOrEqual(2)
    for (const socket of sockets) expect(socket).toMatch(new RegExp(` wss://${NAME}:${httpsPort}/`))
    // /ice.json through the proxy, fresh (no-store) as the app serves it
    const ice = await tabs[1]!.evaluate(async () => {
      const res = await fetch('/ice.json')
      return { cache: res.headers.get('cache-control'), body: (await res.json()) as unknown }
    })
    expect(ice.cache).toBe('no-store')
    expect(ice.body).toMatchObject({ iceServers: expect.any(Array) })
    await expect(tabs[1]!.getByRole('banner').getByLabel('Connections')).toContainText('Relay up')
    // nginx carried the upgrades: a 101 per relay connection, logged as it closes
    await Promise.all(contexts.map((c) => c.close()))
    await expect
      .poll(() => nginx!.accessLog().match(/"GET \/ HTTP\/1\.1" 101 /g)?.length ?? 0)
      .toBeGreaterThanOrEqual(2)
  } finally {
    await Promise.all(contexts.map((c) => c.close()))
    await nginx?.stop()
    await app?.stop()
    rmSync(certDir, { recursive: true, force: true })
  }
})
