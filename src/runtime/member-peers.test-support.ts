/**
 * What the real-libp2p runtime tests share (members.node.test.ts,
 * removal.node.test.ts): Node peers that act for a member, on the offline
 * model with a short latency, and a wait that names what it waited for.
 */
import type { RoomKey } from '../protocol/room-key'
import { createNodeRuntime } from './node'
import type { PeerRuntime, Role } from './types'

/** Polls `cond` every 50 ms; throws naming `what` after `ms`. */
export async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A Node peer acting for the member of `seed` in `owner`'s room; `running` stops it after the test. */
export async function memberPeer(
  running: Array<{ stop(): Promise<void> }>,
  relays: string[],
  role: Role,
  room: RoomKey,
  owner: string,
  seed: Uint8Array,
  dataDir?: string,
): Promise<PeerRuntime & { stop(): Promise<void> }> {
  const runtime = await createNodeRuntime({
    room,
    role,
    relays,
    member: { owner, seed },
    ...(dataDir ? { dataDir } : {}),
    rtcBindAddress: '127.0.0.1',
    providerInit: { latencyMs: 20 },
    log: () => {},
  })
  running.push(runtime)
  return runtime
}
