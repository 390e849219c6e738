import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeRecord, encodeRecord, type Signer } from './codec'
import { strictVerify } from './ed25519'
import { makeSigner, sampleRecords } from './fixtures.test-support'
import { nodeVerify } from './verify.node'

let alice: Signer

beforeAll(async () => {
  alice = await makeSigner()
})

describe('nodeVerify (node:crypto)', () => {
  it('accepts and rejects exactly what the pure-JS verifier (strictVerify) does, on good and on flipped bytes', async () => {
    for (const record of sampleRecords(alice.peerId)) {
      const bytes = await encodeRecord(record, alice)
      const native = decodeRecord(bytes, { verify: nodeVerify })
      expect(native.ok).toBe(true)
      fc.assert(
        fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
          const bad = bytes.slice()
          bad[at]! ^= flip
          const a = decodeRecord(bad, { verify: strictVerify })
          const b = decodeRecord(bad, { verify: nodeVerify })
          expect(b.ok).toBe(a.ok)
          if (!a.ok && !b.ok) expect(b.reason).toBe(a.reason)
        }),
        { numRuns: 40 },
      )
    }
  })

  it('says no to a key of the wrong length instead of throwing', () => {
    expect(nodeVerify(new Uint8Array(64), new Uint8Array(3), new Uint8Array(31))).toBe(false)
  })
})
