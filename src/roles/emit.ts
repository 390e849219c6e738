/** This peer's own records: made, checked and applied the way every peer would take them. */
import { stamp, type Draft, type PlanRecord, type WireRecord } from '../protocol/records'
import { validateRecord } from '../protocol/validate'
import type { PeerState } from './peer'
import type { Effects } from './types'

/**
 * Stamp a draft as this peer's record, check it as any receiver would, then
 * apply it locally and queue it for publishing. A record that fails the
 * check is neither kept nor published (peers would reject it and strike
 * this peer): a bug or an out-of-range value, reported as an event.
 */
export function emit<R extends WireRecord>(
  peer: PeerState,
  fx: Effects,
  draft: Omit<Draft<R>, 'room' | 'from'>,
): R | null {
  const record = stamp<R>({
    ...draft,
    room: peer.config.room,
    from: peer.config.peerId,
  } as Draft<R>)
  const valid = validateRecord(record, { room: peer.config.room, sender: peer.config.peerId })
  if (!valid.ok) {
    fx.events.push({ type: 'invalid-record', kind: record.kind, reason: valid.detail })
    return null
  }
  if (record.kind !== 'presence') peer.plan.add(record as PlanRecord)
  fx.publish.push(record)
  return record
}
