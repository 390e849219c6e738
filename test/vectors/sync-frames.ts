/**
 * Known answers for the sync frames that follow a session's start
 * (docs/PROTOCOL.md §7.2, §7.3): a mismatched fingerprint answered by a split
 * in 16, an idlist answered by a have (and the ids it makes the receiver
 * ask for), the WANT frame that asks for them, and a RECORD frame. Frames
 * are given as sent: uvarint length ‖ type ‖ body. vectors.test.ts checks
 * each from the document's rules alone.
 */
import { createHash } from 'node:crypto'
import { encodeUvarint } from '../../src/net/bytes'
import { SYNC_IDS_PER_FRAME } from '../../src/net/constants'
import { encodeMessage, encodeRecord, encodeWantFrames } from '../../src/net/sync-wire'
import { IdSet, respond, SYNC_PARAMS, type Range } from '../../src/protocol/reconcile'

/** Ids the receiver holds: 40, more than an idlist takes (32), so a mismatch is split. */
const HELD = 40
/** Of those, the sender of the idlist holds the first this many (in order)… */
const SHARED = 18
/** …and lists this many more as held that the receiver lacks. */
const LACKED = 2

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const onWire = (frame: Uint8Array) => hex(Buffer.concat([encodeUvarint(frame.length), frame]))
/** A 16-byte id, as this version makes them, spelled from a label. */
const id = (label: string) =>
  createHash('sha256').update(`murmuration sync vector ${label}`).digest('hex').slice(0, 32)

/** One message as a single RANGES frame (they are small here), on the wire. */
function ranges(message: Range[]): string {
  const [frame] = encodeMessage(message, 64 * 1024)
  return onWire(frame!)
}

export function syncFrameVectors(sealedRecord: Uint8Array) {
  const held = Array.from({ length: HELD }, (_, i) => id(`held ${i}`)).sort()
  const set = new IdSet(held)

  // the peer's fingerprint of the whole range does not match ours (it is all zeros)
  const mismatch: Range[] = [{ upper: null, mode: 'fingerprint', fingerprint: new Uint8Array(16) }]
  const split = respond(set, mismatch, SYNC_PARAMS)

  // the peer lists what it has: 18 of ours and 2 we lack as held, our 19th as archived
  const lacked = Array.from({ length: LACKED }, (_, i) => id(`lacked ${i}`))
  const theirHeld = [...held.slice(0, SHARED), ...lacked].sort()
  const theirArchived = [held[SHARED]!]
  const idlist: Range[] = [{ upper: null, mode: 'idlist', ids: theirHeld, gone: theirArchived }]
  const have = respond(set, idlist, SYNC_PARAMS)
  const [want] = encodeWantFrames(have.need, SYNC_IDS_PER_FRAME)

  return {
    about:
      '§7.2, §7.3: frames as sent (uvarint length ‖ type ‖ body); `held` is the receiver’s set, sorted',
    held,
    split: {
      about:
        'the peer’s fingerprint of the whole range (16 zero bytes) does not match: the receiver answers with 16 sub-ranges of its ids (sub-range k starts at id floor(k·40/16)), each bounded by the next one’s first id (the last by infinity), with its fingerprint',
      message: ranges(mismatch),
      answer: ranges(split.reply),
    },
    have: {
      about:
        'the peer sends an idlist of the whole range: held ids (18 of the receiver’s and 2 it lacks) and one archived id (the receiver’s 19th); the receiver answers with a have of its ids in neither list, and asks for the 2 it lacks',
      theirHeld,
      theirArchived,
      message: ranges(idlist),
      answer: ranges(have.reply),
      asks: have.need,
    },
    want: { ids: have.need, frame: onWire(want!) },
    record: {
      about: 'a RECORD frame: type 0x06 ‖ the sealed record (the sealing vector’s)',
      sealed: hex(sealedRecord),
      frame: onWire(encodeRecord(sealedRecord)),
    },
  }
}
