/**
 * The sync frame limit (PROTOCOL.md §7.2) is exact: the RECORD frame of the
 * largest valid record, sealed, fits, and is the largest frame there is.
 * (The limit the document gave before, 256 KiB + 64, refused this record.)
 */
import { describe, expect, it } from 'vitest'
import { lpStream, streamPair } from '@libp2p/utils'
import type { Stream } from '@libp2p/interface'
import { SYNC_MAX_FRAME_BYTES } from './constants'
import { Syncer } from './sync'
import { encodeRecord as encodeRecordFrame } from './sync-wire'
import type { NetLogger } from './log'
import { decodeRecord, encodeRecord, MAX_WIRE_BYTES, type Signer } from '../protocol/codec'
import { makeSigner } from '../protocol/fixtures.test-support'
import { taskId } from '../protocol/ids'
import { stamp, type Draft, type PlanRecord } from '../protocol/records'
import { deriveRoomKey, SEAL_OVERHEAD, sealRecord } from '../protocol/room-key'
import { SealedStore } from '../runtime/sealed'
import { memoryStore, syncOnce } from '../runtime/sealed-sync.test-support'
import type { PlanStore } from '../runtime/store'

const quiet: NetLogger = { debug() {}, info() {}, warn() {}, error() {} }
const roomKey = deriveRoomKey('frames', new Uint8Array(32).fill(7))

/**
 * A valid result record whose body is exactly MAX_RECORD_BYTES: a long
 * deliverable of three-byte characters and searches whose last source's URL
 * is padded to the byte.
 */
async function largestRecord(signer: Signer): Promise<Uint8Array> {
  // `fill` characters in every URL but the last, `pad` in the last
  const draft = (fill: number, pad: number): Draft<PlanRecord> =>
    ({
      room: roomKey.id,
      from: signer.peerId,
      kind: 'result',
      task: taskId('execute', 'ab'.repeat(16)),
      epoch: 0,
      output: '€'.repeat(60_000),
      steps: Array.from({ length: 5 }, (_, s) => ({
        type: 'search',
        query: `query ${s}`,
        sources: Array.from({ length: 10 }, (_, k) => ({
          title: `source ${k}`,
          url: `https://example.org/${'a'.repeat(s === 4 && k === 9 ? pad : fill)}`,
        })),
      })),
      usage: {
        provider: 'offline',
        model: 'offline-v1',
        inputTokens: 1,
        outputTokens: 1,
        offline: true,
      },
    }) as Draft<PlanRecord>
  const size = async (fill: number, pad: number) =>
    (await encodeRecord(stamp(draft(fill, pad)), signer)).length
  for (let fill = 1_900; fill > 0; fill -= 100) {
    const pad = 1_000 + (MAX_WIRE_BYTES - (await size(fill, 1_000)))
    if (pad >= 1 && pad <= 1_900) return encodeRecord(stamp(draft(fill, pad)), signer)
  }
  throw new Error('no fill reaches the largest record')
}

const store = (): PlanStore => memoryStore(roomKey)

describe('sync frame limit', () => {
  it('is the RECORD frame of the largest valid sealed record: 262,251 bytes', () => {
    expect(SYNC_MAX_FRAME_BYTES).toBe(1 + SEAL_OVERHEAD + MAX_WIRE_BYTES)
    expect(SYNC_MAX_FRAME_BYTES).toBe(262_251)
  })

  it('carries the largest valid record from one peer to another', async () => {
    const signer = await makeSigner()
    const bytes = await largestRecord(signer)
    expect(bytes.length).toBe(MAX_WIRE_BYTES)
    const decoded = decodeRecord(bytes, { room: roomKey.id })
    expect(decoded.ok ? 'valid' : `${decoded.reason}: ${decoded.detail}`).toBe('valid')
    expect(encodeRecordFrame(sealRecord(roomKey, bytes)).length).toBe(SYNC_MAX_FRAME_BYTES)

    const full = store()
    if (!decoded.ok) throw new Error('unreachable')
    expect(full.addVerified(decoded.record as PlanRecord, bytes, false)).toBe(true)
    const empty = store()
    const [report] = await syncOnce(roomKey, empty, full)
    expect(report.error).toBeUndefined()
    expect(report.accepted).toBe(1)
    expect(empty.get(decoded.record.id)).toEqual(bytes)
  })

  it('refuses a frame one byte longer (a violation, the stream aborted)', async () => {
    const [outbound, inbound] = await streamPair()
    const reports: string[] = []
    const s = new Syncer({
      room: roomKey.id,
      store: new SealedStore(roomKey, store()),
      logger: quiet,
      signal: new AbortController().signal,
      idleTimeoutMs: 2_000,
      onSession: (r) => reports.push(r.error ?? 'ok'),
    })
    const session = s.session(inbound, 'evil', false)
    const lp = lpStream(outbound as Stream)
    await lp.write(new Uint8Array(SYNC_MAX_FRAME_BYTES + 1)).catch(() => {})
    await session
    expect(reports[0]).toMatch(/too long/i)
  })
})
