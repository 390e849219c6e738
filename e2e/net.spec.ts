/**
 * The network layer in real Chromium tabs, with a real relay process, real
 * WebRTC and real IndexedDB, on loopback only.
 */
import type { Page } from '@playwright/test'
import type { NetHandle } from './harness/net'
import { expect, peerIdOf, summaryOf, test, waitForFullMesh } from './fixtures/net'

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}

/** Every page subscribes to `topic` and publishes `perTab` messages; returns latencies in ms. */
async function gossipRound(pages: Page[], topic: string, perTab: number): Promise<number[]> {
  await Promise.all(
    pages.map((p) => p.evaluate((t) => (window.net as NetHandle).subscribe(t), topic)),
  )
  // let the subscriptions reach the neighbours (one gossipsub heartbeat is plenty)
  await pages[0]?.waitForTimeout(700)
  const ids = await Promise.all(pages.map(peerIdOf))
  for (let k = 0; k < perTab; k++) {
    await Promise.all(
      pages.map((p) =>
        p.evaluate(([t, n]) => (window.net as NetHandle).publishStamped(t, n), [topic, k] as const),
      ),
    )
    await pages[0]?.waitForTimeout(20)
  }
  const expected = (pages.length - 1) * perTab
  await Promise.all(
    pages.map((p) =>
      p.waitForFunction(
        ([t, n]) => (window.net as NetHandle).received.filter((r) => r.topic === t).length >= n,
        [topic, expected] as const,
        { timeout: 10_000 },
      ),
    ),
  )
  const latencies: number[] = []
  for (const [i, p] of pages.entries()) {
    const got = await p.evaluate(
      (t) => (window.net as NetHandle).received.filter((r) => r.topic === t),
      topic,
    )
    expect(got.length).toBe(expected)
    const senders = new Set(got.map((r) => r.from))
    expect(senders).toEqual(new Set(ids.filter((_, j) => j !== i)))
    for (const r of got) latencies.push(r.at - (JSON.parse(r.text) as { sentAt: number }).sentAt)
  }
  return latencies.sort((a, b) => a - b)
}

test('a. four tabs reach a full mesh of direct WebRTC links and gossip reaches every tab', async ({
  tabs,
}) => {
  const pages = await tabs.openMany(4)
  const t0 = Date.now()
  await waitForFullMesh(pages)
  const meshMs = Date.now() - t0
  for (const p of pages) {
    const s = await summaryOf(p)
    expect(s.relay).toBe('up')
    expect(s.direct).toBe(3)
  }
  const firstLink = await Promise.all(
    pages.map((p) => p.evaluate(() => (window.net as NetHandle).firstDirectAt)),
  )
  console.log(
    '[measure] timelines (ms since page load):',
    JSON.stringify(
      await Promise.all(pages.map((p) => p.evaluate(() => (window.net as NetHandle).timeline))),
    ),
  )
  const lat = await gossipRound(pages, 'a-gossip', 10)
  console.log(
    `[measure] page load → first direct WebRTC link (ms): ${firstLink.map((v) => Math.round(v ?? -1)).join(', ')}; ` +
      `full mesh ${meshMs} ms after the 4 tabs were up`,
  )
  console.log(
    `[measure] gossip latency over ${lat.length} deliveries: median ${quantile(lat, 0.5).toFixed(1)} ms, ` +
      `p95 ${quantile(lat, 0.95).toFixed(1)} ms, max ${quantile(lat, 1).toFixed(1)} ms`,
  )
  expect(quantile(lat, 0.95)).toBeLessThan(500)
})
