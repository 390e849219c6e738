import { beforeAll, describe, expect, it } from 'vitest'
import { decodeRecord, encodeRecord, type Signer } from './codec'
import { makeSigner, sampleRecords } from './fixtures.test-support'
import { stamp, type Presence, type WireRecord } from './records'
import { validateRecord } from './validate'

let alice: Signer

beforeAll(async () => {
  alice = await makeSigner()
})

/** The sample executor beat, as another role (PROTOCOL §3.3: only an executor lists capabilities). */
function beat(role: Presence['role'], capabilities: Presence['capabilities']): Presence {
  const sample = sampleRecords(alice.peerId).find((r): r is Presence => r.kind === 'presence')!
  const { id: _id, v: _v, ...fields } = sample
  return stamp<Presence>({ ...fields, role, capabilities })
}

describe('presence capabilities (PROTOCOL §3.3)', () => {
  it('an executor may list capabilities, and any role may list none', async () => {
    const beats: WireRecord[] = [
      beat('executor', ['can_write_text', 'can_run_code']),
      beat('executor', []),
      beat('scorer', []),
      beat('decomposer', []),
      beat('observer', []),
    ]
    for (const record of beats) {
      const decoded = decodeRecord(await encodeRecord(record, alice), { room: 'lobby' })
      expect(decoded, record.kind).toMatchObject({ ok: true, record })
    }
  })

  it('a beat of any other role that lists a capability is rejected, not ignored', async () => {
    for (const role of ['scorer', 'decomposer', 'observer'] as const) {
      const record = beat(role, ['can_write_text'])
      expect(validateRecord(record)).toMatchObject({ ok: false, reason: 'schema' })
      // encodeRecord signs anything; the receiver's door is what refuses it
      const decoded = decodeRecord(await encodeRecord(record, alice), { room: 'lobby' })
      expect(decoded).toMatchObject({ ok: false, reason: 'schema' })
      if (!decoded.ok) expect(decoded.detail).toContain('capabilities')
    }
  })
})
