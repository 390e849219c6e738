/**
 * Forwarding on previous epochs (docs/PROTOCOL.md §0.1): a member keeps a
 * light node on each epoch it left (at most MAX_FORWARD_EPOCHS), under a
 * throwaway PeerId of its own, so that a member who was offline at a reset
 * finds someone on its old transport id. There it answers sync and gossip
 * only with the rekey records, and the binds and admits that show their
 * authors are owners (without them a returning member could not tell a
 * valid rekey from a forged one); it takes nothing else.
 */
import { generateKeyPair } from '@libp2p/crypto/keys'
import type { Membership } from '../protocol/membership'
import type { PlanRecord } from '../protocol/records'
import type { RoomKey } from '../protocol/room-key'
import { createRoomNode, type RoomNode, type RoomNodeInit } from './room-node'

/** What a forwarding node of a previous epoch carries: rekeys, and what vouches for their authors. */
export function forwardable(m: Membership, record: PlanRecord): boolean {
  if (record.room !== m.room) return false
  if (record.kind === 'rekey') return true
  const owner = (member: string) => {
    const info = m.members.get(member)
    return info !== undefined && (info.rootOwner || info.coOwner)
  }
  if (record.kind === 'bind') return owner(record.member)
  if (record.kind === 'admit') return owner(record.member)
  return false
}

export type ForwarderInit = Omit<RoomNodeInit, 'key' | 'privateKey' | 'forward' | 'opener'> & {
  /** the stable room id records carry */
  stable: string
  membership: () => Membership
}

export class Forwarders {
  private readonly nodes = new Map<string, Promise<RoomNode | null>>()
  private stopped = false

  constructor(private readonly init: ForwarderInit) {}

  /** Forwards on exactly these epochs' keys from now on. */
  set(keys: readonly RoomKey[]): void {
    if (this.stopped) return
    const wanted = new Set(keys.map((k) => k.id))
    for (const [id, node] of this.nodes) {
      if (wanted.has(id)) continue
      this.nodes.delete(id)
      void node.then((n) => n?.stop())
    }
    for (const key of keys) {
      if (this.nodes.has(key.id)) continue
      this.nodes.set(key.id, this.start(key))
    }
  }

  private async start(key: RoomKey): Promise<RoomNode | null> {
    const { stable, membership, ...rest } = this.init
    try {
      return await createRoomNode({
        ...rest,
        key: { id: key.id, recordKey: key.recordKey, records: stable },
        // a PeerId of its own: the room's new members never see this peer's on the old epoch
        privateKey: await generateKeyPair('Ed25519'),
        forward: (record) => forwardable(membership(), record),
        onPlan: (record, plain) => {
          if (forwardable(membership(), record)) rest.store.addVerified(record, plain)
        },
      })
    } catch (err) {
      this.init.log(`could not forward on a previous epoch: ${(err as Error).message}`)
      return null
    }
  }

  /** Transport ids forwarded on now (tests, diagnostics). */
  ids(): string[] {
    return [...this.nodes.keys()]
  }

  async stop(): Promise<void> {
    this.stopped = true
    const nodes = [...this.nodes.values()]
    this.nodes.clear()
    await Promise.all(nodes.map((n) => n.then((node) => node?.stop())))
  }
}
