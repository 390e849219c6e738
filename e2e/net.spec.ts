/**
 * The network layer in real Chromium tabs, with a real relay process, real
 * WebRTC and real IndexedDB, on loopback only.
 */
import { readdirSync, readFileSync } from 'node:fs'
import type { Page } from '@playwright/test'
import type { NetHandle } from './harness/net'
import { expect, nodeUp, peerIdOf, summaryOf, test, waitForFullMesh } from './fixtures/net'
import { startNodePeer, type NodePeer } from './fixtures/node-peer'

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}

/** Every page subscribes to `topic` and publishes `perTab` messages; returns latencies in ms. */
/** Waits until every page holds a link of `kind` to `peerId`. */
async function waitForLinkTo(pages: Page[], peerId: string, kind: string): Promise<void> {
  for (const p of pages) {
    await p.waitForFunction(
      ([id, k]) =>
        (window.net as NetHandle).connections().peers.some((l) => l.peerId === id && l.kind === k),
      [peerId, kind] as const,
      { timeout: 15_000 },
    )
  }
}

/** The node peer and the tabs subscribe to `topic`; what the node publishes reaches every tab. */
async function fromNodeToTabs(peer: NodePeer, pages: Page[], topic: string): Promise<void> {
  peer.subscribe(topic)
  await Promise.all(
    pages.map((p) => p.evaluate((t) => (window.net as NetHandle).subscribe(t), topic)),
  )
  await pages[0]?.waitForTimeout(1_000) // the subscriptions reach the mesh
  await peer.publish(topic, 'from node')
  for (const p of pages) {
    await p.waitForFunction(() =>
      (window.net as NetHandle).received.some((r) => r.text === 'from node'),
    )
  }
}

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
    // `from` is the neighbour that forwarded each message (StrictNoSign: the
    // net layer knows no author); in a full mesh that is another tab
    const others = ids.filter((_, j) => j !== i)
    for (const r of got) expect(others).toContain(r.from)
    for (const r of got) latencies.push(r.at - (JSON.parse(r.text) as { sentAt: number }).sentAt)
  }
  return latencies.sort((a, b) => a - b)
}

test('a. four tabs reach a full mesh of direct WebRTC links and gossip reaches every tab', async ({
  tabs,
}) => {
  const pages = await tabs.openMany(4)
  // four tabs opened at once in one browser took four different identities
  expect(new Set(await Promise.all(pages.map(peerIdOf))).size).toBe(4)
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

test('b. with the relay stopped, gossip still flows tab to tab; a restarted relay keeps its PeerId and tabs come back', async ({
  relay,
  tabs,
}) => {
  const pages = await tabs.openMany(3)
  await waitForFullMesh(pages)
  const relayId = relay.peerId

  await relay.stop()
  await Promise.all(
    pages.map((p) =>
      p.waitForFunction(() => (window.net as NetHandle).connections().relay === 'down'),
    ),
  )
  for (const p of pages) expect((await summaryOf(p)).direct).toBe(2)
  const lat = await gossipRound(pages, 'b-gossip', 5)
  console.log(
    `[measure] gossip with the relay down: median ${quantile(lat, 0.5).toFixed(1)} ms, p95 ${quantile(lat, 0.95).toFixed(1)} ms`,
  )

  await relay.restart()
  expect(relay.peerId).toBe(relayId)
  // the tabs redial it (with backoff) and reserve again
  await Promise.all(
    pages.map((p) =>
      p.waitForFunction(() => (window.net as NetHandle).connections().relay === 'up', undefined, {
        timeout: 20_000,
      }),
    ),
  )
  // and are discoverable again: a new tab links with all of them
  const late = await tabs.open()
  await waitForFullMesh([...pages, late])
})

test('c. a reloaded tab keeps its PeerId; a duplicated tab gets its own', async ({ tabs }) => {
  const a = await tabs.open()
  const idA = await peerIdOf(a)
  await a.reload()
  await nodeUp(a)
  expect(await peerIdOf(a)).toBe(idA)

  // "duplicate tab" copies sessionStorage into the new tab
  const session = await a.evaluate(() => ({ ...sessionStorage }) as Record<string, string>)
  expect(Object.keys(session).length).toBeGreaterThan(0)
  const dup = await tabs.open({ sessionStorage: session })
  const idDup = await peerIdOf(dup)
  expect(idDup).not.toBe(idA)

  // the duplicate keeps its own identity across its reloads, too
  await dup.reload()
  await nodeUp(dup)
  expect(await peerIdOf(dup)).toBe(idDup)
  const fresh = await tabs.open()
  expect(new Set([idA, idDup, await peerIdOf(fresh)]).size).toBe(3)
  // and the original still has its own after all that
  await a.reload()
  await nodeUp(a)
  expect(await peerIdOf(a)).toBe(idA)
})

test('d. a late joiner gets every record through sync within 4 s of its first link; junk offered by sync is rejected and logged', async ({
  tabs,
}) => {
  const [a, b] = (await tabs.openMany(2)) as [Page, Page]
  await waitForFullMesh([a, b])
  // history: 2000 records held before the late joiner arrives, plus 100 gossiped now
  await a.evaluate(() => {
    for (let i = 0; i < 1000; i++)
      (window.net as NetHandle).put(`history a ${i} ${'x'.repeat(i % 300)}`)
  })
  await b.evaluate(() => {
    for (let i = 0; i < 1000; i++) (window.net as NetHandle).put(`history b ${i}`)
  })
  await Promise.all([a, b].map((p) => p.evaluate(() => (window.net as NetHandle).subscribe('d'))))
  await a.waitForTimeout(700)
  await a.evaluate(async () => {
    for (let i = 0; i < 100; i++) await (window.net as NetHandle).publish('d', `gossiped ${i}`)
  })
  await a.evaluate(() => (window.net as NetHandle).syncNow())
  const total = 2100
  await Promise.all(
    [a, b].map((p) => p.waitForFunction((n) => (window.net as NetHandle).storeSize() === n, total)),
  )

  const late = await tabs.open()
  await late.waitForFunction((n) => (window.net as NetHandle).storeSize() === n, total, {
    timeout: 15_000,
    polling: 20,
  })
  const t = await late.evaluate(() => ({
    doneAt: performance.now(),
    tl: (window.net as NetHandle).timeline,
    reports: (window.net as NetHandle).syncReports,
  }))
  const afterLink = t.doneAt - (t.tl['direct-link'] ?? NaN)
  console.log(
    `[measure] sync: late joiner has all ${total} records ${Math.round(t.doneAt)} ms after page load, ` +
      `${Math.round(afterLink)} ms after its first direct link (sessions: ${t.reports
        .map((r) => `${r.accepted} in ${r.ms} ms`)
        .join(', ')})`,
  )
  // 0.2 to 0.9 s on a quiet machine, 2.8 s once beside room-flood.spec.ts's flood: the bound is
  // not a speed target (`npm run bench:sync` measures that) but under the sync idle timeout
  // (SYNC_IDLE_TIMEOUT_MS, 5 s), so a session that stalled and was retried would not pass
  expect(afterLink).toBeLessThan(4_000)
  const accepted = t.reports.reduce((n, r) => n + r.accepted, 0)
  expect(accepted).toBeLessThanOrEqual(total)

  // a malicious tab plants junk in its store and offers it by sync
  const evil = await tabs.open({ lax: true })
  await waitForFullMesh([a, b, late, evil])
  const { junk, good } = await evil.evaluate(() => {
    const net = window.net as NetHandle
    return {
      junk: [net.plantJunk([0xff, 1]), net.plantJunk([0xff, 2]), net.plantJunk([0xff, 3])],
      good: net.put('a good record from the evil tab'),
    }
  })
  await evil.evaluate(() => (window.net as NetHandle).syncNow())
  for (const p of [a, b, late]) {
    await p.waitForFunction((id) => (window.net as NetHandle).hasRecord(id), good)
    await p.waitForFunction(() => (window.net as NetHandle).storeRejected() >= 3)
    for (const id of junk)
      expect(await p.evaluate((i) => (window.net as NetHandle).hasRecord(i), id)).toBe(false)
    const logs = await p.evaluate(() => (window.net as NetHandle).logs)
    expect(
      logs.filter((l) => l.startsWith('warn sync: record rejected')).length,
    ).toBeGreaterThanOrEqual(3)
  }
})

test('e. a headless Node peer joins the tabs’ mesh over WebRTC and exchanges gossip with them', async ({
  relay,
  room,
  tabs,
}) => {
  const T0 = Date.now()
  const step = (what: string) => console.log(`[e] ${what} at ${Date.now() - T0} ms`)
  const pages = await tabs.openMany(2)
  await waitForFullMesh(pages)
  step('tabs meshed')
  // an agent of another machine, as far as the tabs can tell: no WebSocket they may open
  const peer = await startNodePeer({ relays: relay.multiaddrs, room, webrtcOnly: true })
  step('node peer up')
  try {
    await waitForLinkTo(pages, peer.peerId, 'direct-webrtc')
    step('tabs linked to node')
    await peer.waitFor(() => (peer.summary()?.direct ?? 0) === 2, 10_000, 'node links')
    step('node linked to tabs')
    await fromNodeToTabs(peer, pages, 'e')
    const ids = await Promise.all(pages.map(peerIdOf))
    await Promise.all(
      pages.map((p, i) =>
        p.evaluate((t) => (window.net as NetHandle).publish('e', t), `from tab ${i}`),
      ),
    )
    await peer.waitFor(() => peer.messages.length === 2, 10_000, 'tab messages')
    // `from` is the neighbour that forwarded the message (GossipSub runs
    // StrictNoSign: authorship is the record's own signature, not the net's)
    for (const m of peer.messages) expect(ids).toContain(m.from)
    expect(peer.messages.map((m) => m.text).sort()).toEqual(['from tab 0', 'from tab 1'])
  } finally {
    await peer.stop()
  }
})

test('e2. tabs dial a Node agent’s WebSocket, and the agent never runs WebRTC', async ({
  relay,
  room,
  tabs,
}) => {
  const pages = await tabs.openMany(2)
  await waitForFullMesh(pages)
  const peer = await startNodePeer({ relays: relay.multiaddrs, room })
  try {
    await waitForLinkTo(pages, peer.peerId, 'other')
    await peer.waitFor(() => (peer.summary()?.other ?? 0) === 2, 10_000, 'node links')
    const linkUp = peer.logs.filter((l) => l.startsWith('info direct link up'))
    expect(linkUp).toEqual([]) // the tabs dialled, not the agent
    const tabLinks = (
      await Promise.all(pages.map((p) => p.evaluate(() => (window.net as NetHandle).logs)))
    ).flat()
    expect(tabLinks.filter((l) => l.includes(peer.peerId) && l.includes('/ws/'))).toHaveLength(2)
    // gossip both ways over the WebSocket links
    await fromNodeToTabs(peer, pages, 'e2')
    await pages[0]!.evaluate(() => (window.net as NetHandle).publish('e2', 'from tab'))
    await peer.waitFor(
      () => peer.messages.some((m) => m.text === 'from tab'),
      10_000,
      'tab message',
    )
    // libdatachannel's SCTP timer thread (10 ms, for good) starts with the first WebRTC link
    const threads = readdirSync(`/proc/${peer.pid}/task`).map((t) =>
      readFileSync(`/proc/${peer.pid}/task/${t}/comm`, 'utf8').trim(),
    )
    expect(threads).not.toContain('SCTP timer')
  } finally {
    await peer.stop()
  }
})

test('f. dial-race regression: mesh formation completes quickly, round after round', async ({
  context,
  room,
  tabs,
}) => {
  // With the @libp2p/webrtc 6.0.33 dial race back, a dial hangs until our
  // DIAL_TIMEOUT_MS (10 s), fails, and is retried: that pair links after more
  // than 10 s and its tab logs a failed dial. Without it, every dial succeeds
  // the first time, in 1-4 s even on a loaded 2-core machine.
  const ROUNDS = 3
  const MESH_DEADLINE_MS = 9_500
  const times: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const pages = await tabs.openMany(3, { room: `${room}-${round}` })
    const t0 = Date.now()
    await waitForFullMesh(pages, 20_000)
    times.push(Date.now() - t0)
    const failures = (
      await Promise.all(pages.map((p) => p.evaluate(() => (window.net as NetHandle).logs)))
    )
      .flat()
      .filter((l) => l.includes('dial failed'))
    expect(failures).toEqual([])
    await Promise.all(context.pages().map((p) => p.close()))
  }
  console.log(
    `[measure] 3-tab mesh formation per round (ms after all tabs were up): ${times.join(', ')}`,
  )
  for (const t of times) expect(t).toBeLessThan(MESH_DEADLINE_MS)
})

test('g. gossip the validator rejects is not delivered to other tabs', async ({ tabs }) => {
  const evil = await tabs.open({ lax: true })
  const good = await tabs.openMany(2)
  const all = [evil, ...good]
  await waitForFullMesh(all)
  await Promise.all(all.map((p) => p.evaluate(() => (window.net as NetHandle).subscribe('g'))))
  await evil.waitForTimeout(1_000)
  const sentTo = await evil.evaluate(() =>
    (window.net as NetHandle).publishBytes('g', [0xff, 0x6a, 0x75, 0x6e, 0x6b]),
  )
  expect(sentTo).toBeGreaterThan(0)
  await evil.evaluate(() => (window.net as NetHandle).publish('g', 'valid after junk'))
  for (const p of good) {
    await p.waitForFunction(() =>
      (window.net as NetHandle).received.some((r) => r.text === 'valid after junk'),
    )
    const texts = await p.evaluate(() => (window.net as NetHandle).received.map((r) => r.text))
    expect(texts).toEqual(['valid after junk'])
    const logs = await p.evaluate(() => (window.net as NetHandle).logs)
    expect(logs.some((l) => l.startsWith('warn gossip: message rejected'))).toBe(true)
  }
  // a good tab's own validator refuses to publish junk at all
  const err = await good[0]?.evaluate(() =>
    (window.net as NetHandle).publishBytes('g', [0xff]).then(
      () => 'published',
      (e: Error) => e.name,
    ),
  )
  expect(err).toBe('RecordRejectedError')
})
