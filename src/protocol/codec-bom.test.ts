import { beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical'
import { decodeRecord, decodeRecordAsync, SIGNING_PREFIX, type Signer } from './codec'
import { makeSigner, sampleRecords } from './fixtures.test-support'

let alice: Signer

beforeAll(async () => {
  alice = await makeSigner()
})

/** Wire bytes of `body`, validly signed by alice whatever the body holds. */
async function signed(body: Uint8Array): Promise<Uint8Array> {
  const signature = await alice.sign(new Uint8Array([...SIGNING_PREFIX, ...body]))
  return new Uint8Array([1, ...signature, ...body])
}

describe('a body is its canonical encoding, byte for byte (PROTOCOL §4)', () => {
  it('accepts the canonical body', async () => {
    const goal = sampleRecords(alice.peerId)[0]!
    const wire = await signed(new TextEncoder().encode(canonicalJson(goal)))
    expect(decodeRecord(wire)).toMatchObject({ ok: true, record: goal })
  })

  it('rejects the same body behind a UTF-8 byte-order mark, signed as sent', async () => {
    const goal = sampleRecords(alice.peerId)[0]!
    const bom = [0xef, 0xbb, 0xbf]
    const wire = await signed(
      new Uint8Array([...bom, ...new TextEncoder().encode(canonicalJson(goal))]),
    )
    expect(decodeRecord(wire)).toMatchObject({ ok: false })
    expect(await decodeRecordAsync(wire)).toMatchObject({ ok: false })
  })
})
