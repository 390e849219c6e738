/**
 * `npm run bench:webrtc-floor`: what idle WebRTC links cost a page by
 * themselves, without Murmuration: the floor under a quiet tab's CPU.
 *
 * Plain pages in Debian's Chromium, one browser context each: page 0 holds
 * `--links` RTCPeerConnections (one open, silent data channel each), one to
 * each other page, signalled by hand (no relay, no libp2p, no JavaScript
 * running afterwards). After `--settle` seconds (ICE keeps checking its
 * candidate pairs faster at first) it reads each renderer's CPU, by thread,
 * from /proc over `--seconds`. What remains is the browser's own upkeep of a
 * link: ICE consent checks on the selected pair (every 2.5 s or so, each
 * side), SCTP heartbeats, and their IPC.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync } from 'node:fs'
import { chromium, type Page } from 'playwright'
import { chromiumType, threadCpu } from './proc-cpu'

const USAGE = `npm run bench:webrtc-floor -- [--links N] [--settle S] [--seconds S]
  --links N     links page 0 holds, one to each other page (default 2)
  --settle S    seconds after the links are up before measuring (default 60)
  --seconds S   seconds measured (default 120)`

function parse(argv: string[]): { links: number; settle: number; seconds: number } {
  const o = { links: 2, settle: 60, seconds: 120 }
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i]!.replace(/^--/, '') as keyof typeof o
    const v = Number(argv[++i])
    if (!(key in o) || !Number.isFinite(v) || v < 0) throw new Error(USAGE)
    o[key] = v
  }
  return o
}

/** CPU seconds by thread name of every renderer process, keyed pid → name. */
function rendererThreads(): Map<number, Map<string, number>> {
  const out = new Map<number, Map<string, number>>()
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || chromiumType(pid) !== 'renderer') continue
    const threads = threadCpu(pid)
    if (threads) out.set(pid, threads)
  }
  return out
}

/** Links page `a` to page `b`: offer, answer and every candidate in the SDP. */
async function link(a: Page, b: Page): Promise<void> {
  const gathered = async (side: 'offer' | 'answer', remote?: RTCSessionDescriptionInit) =>
    (side === 'offer' ? a : b).evaluate(
      async ({ side, remote }) => {
        const w = window as unknown as { pcs?: RTCPeerConnection[]; dcs?: RTCDataChannel[] }
        const pc = new RTCPeerConnection()
        ;(w.pcs ??= []).push(pc)
        if (side === 'offer') (w.dcs ??= []).push(pc.createDataChannel('floor'))
        else pc.ondatachannel = (e) => (w.dcs ??= []).push(e.channel)
        if (remote) await pc.setRemoteDescription(remote)
        await pc.setLocalDescription(
          side === 'offer' ? await pc.createOffer() : await pc.createAnswer(),
        )
        await new Promise<void>((resolve) => {
          if (pc.iceGatheringState === 'complete') resolve()
          pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve()
        })
        return pc.localDescription!.toJSON() as RTCSessionDescriptionInit
      },
      { side, remote },
    )
  const offer = await gathered('offer')
  const answer = await gathered('answer', offer)
  await a.evaluate(async (answer) => {
    const pcs = (window as unknown as { pcs: RTCPeerConnection[] }).pcs
    await pcs.at(-1)!.setRemoteDescription(answer)
  }, answer)
  await a.waitForFunction(() => {
    const pcs = (window as unknown as { pcs: RTCPeerConnection[] }).pcs
    return pcs.at(-1)!.connectionState === 'connected'
  })
}

const opts = parse(process.argv.slice(2))
const server = createServer((_req, res) => {
  res.setHeader('content-type', 'text/html')
  res.end('<!doctype html><title>floor</title>')
}).listen(0, '127.0.0.1')
await new Promise((resolve) => server.once('listening', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--allow-loopback-in-peer-connection'],
})
try {
  const pages: Page[] = []
  for (let i = 0; i <= opts.links; i++) {
    const page = await (await browser.newContext()).newPage()
    await page.goto(url)
    pages.push(page)
  }
  for (const other of pages.slice(1)) await link(pages[0]!, other)
  const pids = new Map<number, number>() // renderer pid → page index
  for (const [i, page] of pages.entries()) {
    // the renderer whose CPU rises when this page spins for a second is this
    // page's (300 ms once lost to another renderer's noise)
    const a = rendererThreads()
    await page.evaluate(() => {
      const end = performance.now() + 1_000
      while (performance.now() < end);
    })
    const b = rendererThreads()
    let best = -1
    let most = 0
    for (const [pid, threads] of b) {
      const spent = [...threads].reduce((s, [n, c]) => s + c - (a.get(pid)?.get(n) ?? 0), 0)
      if (spent > most) [best, most] = [pid, spent]
    }
    if (best > 0) pids.set(best, i)
  }
  console.log(`floor: page 0 holds ${opts.links} links; settling ${opts.settle} s`)
  await new Promise((r) => setTimeout(r, opts.settle * 1_000))
  const start = rendererThreads()
  await new Promise((r) => setTimeout(r, opts.seconds * 1_000))
  const end = rendererThreads()
  const rows: Record<string, unknown>[] = []
  for (const [pid, i] of [...pids].sort((x, y) => x[1] - y[1])) {
    const byThread: Record<string, number> = {}
    let total = 0
    for (const [name, cpu] of end.get(pid) ?? []) {
      const pct = ((cpu - (start.get(pid)?.get(name) ?? cpu)) / opts.seconds) * 100
      total += pct
      if (pct > 0) byThread[name] = Math.round(pct * 1_000) / 1_000
    }
    const links = i === 0 ? opts.links : 1
    console.log(
      `  page ${i} (${links} link${links === 1 ? '' : 's'}): ${total.toFixed(3)}% of a core; ` +
        Object.entries(byThread)
          .map(([n, p]) => `${n} ${p}`)
          .join(', '),
    )
    rows.push({ page: i, links, percent: Math.round(total * 1_000) / 1_000, byThread })
  }
  console.log(JSON.stringify({ settleS: opts.settle, seconds: opts.seconds, pages: rows }))
} finally {
  await browser.close()
  server.close()
}
