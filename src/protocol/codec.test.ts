import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical'
import {
  decodeRecord,
  decodeRecordAsync,
  encodeRecord,
  SIGNATURE_BYTES,
  type Signer,
} from './codec'
import { makeSigner, sampleRecords } from './fixtures.test-support'
import { recordId, stamp, type WireRecord } from './records'
import { wireRecordSchema } from './schemas'
import { MAX_GOAL_TEXT, MAX_RECORD_BYTES } from './limits'

let alice: Signer
let mallory: Signer

beforeAll(async () => {
  alice = await makeSigner()
  mallory = await makeSigner()
})

/** Re-sign a tampered body as `signer` would (bypassing encodeRecord's checks). */
async function rawBytes(body: object, signer: Signer): Promise<Uint8Array> {
  const text = new TextEncoder().encode(canonicalJson(body))
  const prefix = new TextEncoder().encode('murmuration/record/1\n')
  const payload = new Uint8Array([...prefix, ...text])
  const sig = await signer.sign(payload)
  return new Uint8Array([1, ...sig, ...text])
}

describe('codec', () => {
  it('round-trips one record of every kind', async () => {
    for (const record of sampleRecords(alice.peerId)) {
      const decoded = await decodeRecord(await encodeRecord(record, alice), {
        room: 'lobby',
        sender: alice.peerId,
      })
      expect(decoded, record.kind).toMatchObject({ ok: true, record })
    }
  })

  it('decodes the same way with platform crypto', async () => {
    const records = sampleRecords(alice.peerId)
    for (const record of records) {
      const bytes = await encodeRecord(record, alice)
      expect(await decodeRecordAsync(bytes)).toEqual(decodeRecord(bytes))
      bytes[10] = bytes[10]! ^ 1 // inside the signature
      expect(await decodeRecordAsync(bytes)).toMatchObject({ ok: false, reason: 'bad-signature' })
      expect(decodeRecord(bytes)).toMatchObject({ ok: false, reason: 'bad-signature' })
    }
  })

  it('rejects a record from another room', async () => {
    const [goal] = sampleRecords(alice.peerId, 'other-room')
    const decoded = await decodeRecord(await encodeRecord(goal!, alice), { room: 'lobby' })
    expect(decoded).toMatchObject({ ok: false, reason: 'wrong-room' })
  })

  it('rejects a record relayed by someone who is not its author', async () => {
    const [goal] = sampleRecords(alice.peerId)
    const decoded = await decodeRecord(await encodeRecord(goal!, alice), { sender: mallory.peerId })
    expect(decoded).toMatchObject({ ok: false, reason: 'wrong-sender' })
  })

  it('rejects a forged id', async () => {
    const [goal] = sampleRecords(alice.peerId)
    const forged = { ...goal!, id: 'f'.repeat(32) }
    expect(await decodeRecord(await rawBytes(forged, alice))).toMatchObject({
      ok: false,
      reason: 'bad-id',
    })
  })

  it('rejects a claim whose task id is not derived from its subject', async () => {
    const claim = sampleRecords(alice.peerId).find((r) => r.kind === 'claim')!
    const forged = stamp({ ...claim, task: 'a'.repeat(32) } as never)
    expect(await decodeRecord(await rawBytes(forged, alice))).toMatchObject({
      ok: false,
      reason: 'bad-id',
    })
  })

  it('rejects a record signed by someone else than its `from`', async () => {
    const [goal] = sampleRecords(alice.peerId)
    expect(await decodeRecord(await rawBytes(goal!, mallory))).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    })
  })

  it('rejects out-of-range scores, oversized fields and unknown kinds', async () => {
    const score = sampleRecords(alice.peerId).find((r) => r.kind === 'score')!
    const cases: [object, string][] = [
      [stamp({ ...score, score: 1.5 } as never), 'schema'],
      [
        stamp({ ...sampleRecords(alice.peerId)[0]!, text: 'x'.repeat(MAX_GOAL_TEXT + 1) } as never),
        'schema',
      ],
      [stamp({ ...score, kind: 'vote' } as never), 'schema'],
      [stamp({ ...score, extra: 1 } as never), 'schema'],
      [stamp({ ...sampleRecords(alice.peerId)[0]!, text: ' padded ' } as never), 'schema'],
    ]
    for (const [body, reason] of cases) {
      expect(await decodeRecord(await rawBytes(body, alice))).toMatchObject({ ok: false, reason })
    }
  })

  it('rejects a proposal whose dependencies point forward or to itself', async () => {
    const proposal = sampleRecords(alice.peerId).find((r) => r.kind === 'proposal')!
    const cyclic = stamp({
      ...proposal,
      subgoals: [
        { text: 'a', dependsOn: [1] },
        { text: 'b', dependsOn: [0] },
      ],
    } as never)
    expect(await decodeRecord(await rawBytes(cyclic, alice))).toMatchObject({
      ok: false,
      reason: 'schema',
    })
  })

  it('rejects non-canonical bodies and oversized payloads', async () => {
    const [goal] = sampleRecords(alice.peerId)
    const spaced = new TextEncoder().encode(JSON.stringify(goal, null, 1))
    const bytes = new Uint8Array(1 + SIGNATURE_BYTES + spaced.length)
    bytes[0] = 1
    bytes.set(spaced, 1 + SIGNATURE_BYTES)
    expect(await decodeRecord(bytes)).toMatchObject({ ok: false, reason: 'not-canonical' })
    expect(await decodeRecord(new Uint8Array(MAX_RECORD_BYTES + 100))).toMatchObject({
      ok: false,
      reason: 'too-large',
    })
  })

  it('never throws on random bytes, and rejects them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), async (bytes) => {
        const decoded = await decodeRecord(bytes)
        expect(decoded.ok).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  it('never throws on mutated valid records, and anything it accepts passes its own checks', async () => {
    const encoded = await Promise.all(
      sampleRecords(alice.peerId).map((r) => encodeRecord(r, alice)),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.nat(encoded.length - 1),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.nat(40),
        async (which, flips, cut) => {
          const bytes = new Uint8Array(encoded[which]!)
          for (const [at, value] of flips) bytes[at % bytes.length] = value
          const input = cut > 35 ? bytes.subarray(0, bytes.length - cut) : bytes
          const decoded = await decodeRecord(input)
          if (decoded.ok) {
            // whatever is accepted is self-consistent: schema, canonical bytes, id
            const record = decoded.record as WireRecord
            expect(wireRecordSchema.safeParse(record).success).toBe(true)
            expect(canonicalJson(record)).toBe(new TextDecoder().decode(decoded.body))
            expect(recordId(record)).toBe(record.id)
          }
        },
      ),
      { numRuns: 1_000 },
    )
  })
})
