/**
 * The initial-load budget: what a visitor downloads before picking a role
 * (the start screen) and once a role runs (libp2p on the page, the role's
 * worker). The test records every same-origin file the tab fetched, then
 * fetches each again as gzip and as brotli from the app server, prints the
 * figures, and fails when the gzip totals exceed the budgets. Figures are
 * in docs/PERFORMANCE.md.
 */
import { request as httpRequest } from 'node:http'
import type { Page } from '@playwright/test'
import { expect, test } from './fixtures/ui-app'
import { pickRole } from './fixtures/ui-steps'
import { MIN_COMPRESS_BYTES } from '../relay/static-files'

/**
 * Start screen, gzip: today about 52 kB (Svelte runtime, the start screen,
 * styles, page; the workspace, 33 kB, loads once a role is picked). The
 * budget leaves room for a few screens' worth of growth, and fails if
 * libp2p, the Markdown renderer or the QR encoder creep back in (each is
 * 10 to 200 kB).
 */
const BEFORE_ROLE_GZIP_BUDGET = 64 * 1024
/**
 * After joining as an observer, gzip: today about 565 kB (libp2p with WebRTC
 * and GossipSub on the page, 206 kB; the worker with the role core, the AI
 * SDK, the lenient reply reader and the offline model, 200 kB, was 173
 * before issues 43 and 44 and 215 with the offline model's catalogs before
 * issue 56; the signature worker, 68 kB, which carries its
 * own copy of the codec and the crypto so the page never verifies a
 * signature). A second copy of an SDK package or the AI Gateway would break it.
 */
const AFTER_ROLE_GZIP_BUDGET = 600 * 1024

interface Fetched {
  path: string
  bytes: number
  encoding: string
}

/** Fetches a path with one Accept-Encoding; the byte count is what went over the wire. */
function fetchEncoded(origin: string, path: string, encoding: string): Promise<Fetched> {
  return new Promise((ok, fail) => {
    const req = httpRequest(
      new URL(path, origin),
      { headers: { 'Accept-Encoding': encoding } },
      (res) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('end', () =>
          ok({ path, bytes, encoding: String(res.headers['content-encoding'] ?? 'identity') }),
        )
        res.on('error', fail)
      },
    )
    req.on('error', fail)
    req.end()
  })
}

function sameOriginPaths(urls: Iterable<string>, origin: string): string[] {
  return [...new Set([...urls].filter((u) => u.startsWith(origin)).map((u) => new URL(u).pathname))]
    .filter((p) => p !== '/relay.json' && p !== '/app-config.json')
    .sort()
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle')
}

test('initial load stays within budget, compressed, with no source maps', async ({
  browse,
  room,
  app,
}) => {
  const machine = await browse.machine('budget')
  const seen: string[] = []
  machine.on('request', (req) => seen.push(req.url()))
  const page = await browse.tab(machine, 'budget')
  await expect(page.getByRole('button', { name: /^Observer\b/ })).toBeVisible()
  await settle(page)
  const before = sameOriginPaths(seen, app.origin)
  await pickRole(page, room, 'observer')
  await settle(page)
  const after = sameOriginPaths(seen, app.origin)

  const measure = async (paths: string[]) => {
    const rows = []
    for (const path of paths) {
      const [gzip, br, raw] = await Promise.all(
        ['gzip', 'br', 'identity'].map((e) => fetchEncoded(app.origin, path, e)),
      )
      rows.push({ path, raw: raw!.bytes, gzip: gzip!.bytes, br: br!.bytes, enc: gzip!.encoding })
    }
    return rows
  }
  const beforeRows = await measure(before)
  const afterRows = await measure(after)
  const total = (rows: typeof beforeRows, k: 'raw' | 'gzip' | 'br') =>
    rows.reduce((sum, r) => sum + r[k], 0)
  const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`
  for (const [name, rows] of [
    ['before a role', beforeRows],
    ['after a role', afterRows],
  ] as const) {
    console.log(`load budget, ${name}:`)
    for (const r of rows)
      console.log(`  ${r.path.padEnd(40)} raw ${kB(r.raw)}  gzip ${kB(r.gzip)}  br ${kB(r.br)}`)
    console.log(
      `  TOTAL ${rows.length} files: raw ${kB(total(rows, 'raw'))}, gzip ${kB(total(rows, 'gzip'))}, br ${kB(total(rows, 'br'))}`,
    )
  }

  // no map is requested, and none is served
  expect(after.filter((p) => p.endsWith('.map'))).toEqual([])
  const script = after.find((p) => p.endsWith('.js'))!
  expect((await fetchEncoded(app.origin, `${script}.map`, 'gzip')).bytes).toBeLessThan(100) // a 404
  // scripts come compressed (but for one under MIN_COMPRESS_BYTES, such as the bundler's
  // tiny runtime chunk: compressing it would cost more than it saves)
  for (const r of afterRows.filter((r) => r.path.endsWith('.js')))
    expect(r.enc, r.path).toBe(r.raw < MIN_COMPRESS_BYTES ? 'identity' : 'gzip')
  // the worker bundles no AI Gateway (vite.config.ts aliases it away)
  const worker = after.find((p) => p.includes('role.worker'))!
  const workerText = await (await fetch(new URL(worker, app.origin))).text()
  expect(workerText).not.toContain('ai-gateway.vercel.sh')
  // the start screen loads neither the Markdown renderer nor the QR encoder nor libp2p
  expect(before.filter((p) => /markdown|qrcode|browser-/.test(p))).toEqual([])

  expect(total(beforeRows, 'gzip')).toBeLessThanOrEqual(BEFORE_ROLE_GZIP_BUDGET)
  expect(total(afterRows, 'gzip')).toBeLessThanOrEqual(AFTER_ROLE_GZIP_BUDGET)
})
