/**
 * The network-layer test harness page: starts a browser swarm node from URL
 * parameters and exposes a test handle as `window.net`. Not part of the app.
 *
 * URL parameters:
 *   relay=<multiaddr>   (repeatable) relay addresses
 *   room=<name>         default 'e2e'
 *   lax=1               accept every gossip message (plays a malicious peer)
 */
import { createSwarmNode } from '../../src/net/node.browser'
import { MemoryStore, recordIdOf, testValidate } from '../../src/net/testing/memory-store'
import type { ConnectionSummary, NetLogger, SwarmNode, SyncReport } from '../../src/net/types'

export interface Received {
  topic: string
  text: string
  from: string
  /** epoch ms (performance.timeOrigin + now), comparable across tabs */
  at: number
}

export interface NetHandle {
  peerId: string
  /** ms since navigation start when the node was up, and when the first direct WebRTC link appeared */
  startedAt: number
  firstDirectAt: number | null
  /** ms since navigation start of milestones: node, relay-up, known-peer, direct-link */
  timeline: Record<string, number>
  logs: string[]
  received: Received[]
  syncReports: SyncReport[]
  connections(): ConnectionSummary
  subscribe(topic: string): void
  /** publishes text; returns the recipients count */
  publish(topic: string, text: string): Promise<number>
  /** publishes {"from","k","sentAt"} stamped with this tab's clock (for latency) */
  publishStamped(topic: string, k: number): Promise<number>
  publishBytes(topic: string, bytes: number[]): Promise<number>
  /** adds a record to the local store (as the protocol layer would) */
  put(text: string): string
  /** plants a junk record in the local store (a malicious peer's store) */
  plantJunk(bytes: number[]): string
  storeSize(): number
  storeRejected(): number
  hasRecord(id: string): boolean
  syncNow(): Promise<SyncReport[]>
  stop(): Promise<void>
}

declare global {
  interface Window {
    net?: NetHandle
    netError?: string
  }
}

const params = new URLSearchParams(location.search)
const relays = params.getAll('relay')
const room = params.get('room') ?? 'e2e'
const lax = params.get('lax') === '1'
const now = () => performance.timeOrigin + performance.now()
const enc = new TextEncoder()
const dec = new TextDecoder()

const scriptAt = performance.now()
const logs: string[] = []
const logger: NetLogger = {
  debug: () => {},
  info: (m, f) => void logs.push(`info ${m} ${f ? JSON.stringify(f) : ''}`),
  warn: (m, f) => {
    logs.push(`warn ${m} ${f ? JSON.stringify(f) : ''}`)
    console.warn(m, f)
  },
  error: (m, f) => {
    logs.push(`error ${m} ${f ? JSON.stringify(f) : ''}`)
    console.error(m, f)
  },
}

const state = document.getElementById('state') as HTMLElement
const store = new MemoryStore()

async function main(): Promise<void> {
  const node: SwarmNode = await createSwarmNode({
    relays,
    room,
    store,
    logger,
    validate: lax ? () => 'accept' : testValidate,
  })
  const received: Received[] = []
  const syncReports: SyncReport[] = []
  let firstDirectAt: number | null = null
  const timeline: Record<string, number> = { script: scriptAt, node: performance.now() }
  const mark = (k: string) => {
    if (timeline[k] === undefined) timeline[k] = performance.now()
  }
  const onConnections = (s: ConnectionSummary) => {
    if (s.relay === 'up') mark('relay-up')
    if (s.known > 0) mark('known-peer')
    if (firstDirectAt === null && s.direct > 0) {
      firstDirectAt = performance.now()
      mark('direct-link')
    }
  }
  node.on('connections', onConnections)
  node.on('sync', (r) => void syncReports.push(r))
  const subscribed = new Set<string>()

  const handle: NetHandle = {
    peerId: node.peerId,
    startedAt: performance.now(),
    get firstDirectAt() {
      return firstDirectAt
    },
    timeline,
    logs,
    received,
    syncReports,
    connections: () => node.connections(),
    subscribe(topic) {
      if (subscribed.has(topic)) return
      subscribed.add(topic)
      node.subscribe(topic, (bytes, from) => {
        // gossip goes into the store, as the protocol layer does
        store.put(bytes, from)
        received.push({ topic, text: dec.decode(bytes), from, at: now() })
      })
    },
    async publish(topic, text) {
      const bytes = enc.encode(text)
      store.put(bytes)
      return (await node.publish(topic, bytes)).recipients
    },
    async publishStamped(topic, k) {
      const bytes = enc.encode(JSON.stringify({ from: node.peerId, k, sentAt: now() }))
      store.put(bytes)
      return (await node.publish(topic, bytes)).recipients
    },
    async publishBytes(topic, bytes) {
      return (await node.publish(topic, Uint8Array.from(bytes))).recipients
    },
    put(text) {
      const bytes = enc.encode(text)
      store.put(bytes)
      return recordIdOf(bytes)
    },
    plantJunk(bytes) {
      const b = Uint8Array.from(bytes)
      const id = recordIdOf(b)
      store.records.set(id, b)
      return id
    },
    storeSize: () => store.records.size,
    storeRejected: () => store.rejected.length,
    hasRecord: (id) => store.records.has(id),
    syncNow: () => node.syncNow(),
    stop: () => node.stop(),
  }
  window.net = handle
  state.textContent = `up ${node.peerId}`
}

main().catch((err: unknown) => {
  window.netError = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  state.textContent = `failed: ${window.netError}`
})
