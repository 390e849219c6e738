/**
 * An owner's rekey (docs/PROTOCOL.md §0.1), made and followed up: the record
 * that removes a member (its boxes and its `kept`), and which of this
 * owner's rekeys lost a race to another owner's, so that its app makes the
 * change again on top of the winner. Pure: members.ts does the I/O.
 */
import { keptIds, type KeptCandidate } from '../protocol/kept'
import { sealEpochSecret } from '../protocol/member-key'
import { nextRekey, peersOf, rekeyRecipients, type Membership } from '../protocol/membership'
import { newRekey, type RekeyRecord } from '../protocol/records'
import { newRoomSecret } from '../protocol/room-key'

/** A change this owner made with a rekey: whom it removed, and why. */
export interface OwnRekey {
  member: string
  reason: 'remove' | 'reset'
  epoch: number
}

/**
 * The rekey removing `member` from `m`'s room, from this owner's PeerId: the
 * next epoch of the chain, a fresh secret sealed to every member who stays,
 * and (since version 8) `kept`: every record of the member's PeerIds in
 * `held` (this peer's records and archived ids).
 */
export function removalRekey(
  m: Membership,
  from: string,
  member: string,
  reason: 'remove' | 'reset',
  held: readonly KeptCandidate[],
  at: number,
): { record: RekeyRecord; secret: Uint8Array } {
  const { epoch, prev } = nextRekey(m)
  const secret = newRoomSecret()
  const sealed = sealEpochSecret(m.room, epoch, secret, rekeyRecipients(m, [member]))
  const peers = new Set(peersOf(m, member))
  const kept = keptIds(held, peers)
  const record = newRekey(
    m.room,
    from,
    { epoch, prev, removed: [member], reason, eph: sealed.eph, boxes: sealed.boxes, kept },
    at,
  )
  return { record, secret }
}

/**
 * This owner's rekeys that another owner's won the race for (the chain has
 * a rekey of their epoch that is not theirs) and whose member is still in:
 * their changes to make again, on top of the winner.
 */
export function lostRekeys(m: Membership, mine: ReadonlyMap<string, OwnRekey>): string[] {
  return [...mine]
    .filter(([id, own]) => {
      const winner = m.rekeys[own.epoch - 1]
      return winner !== undefined && winner.id !== id && m.isActive(own.member)
    })
    .map(([id]) => id)
}
