/**
 * The removal vectors (docs/test-vectors.json `removal`, PROTOCOL.md §0.1
 * since version 8) say what the rules make of a removed co-owner's records,
 * and every record of the scenario is valid as spelled. (That the file is
 * what the code computes is vectors.test.ts's check of the whole file.)
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../src/protocol/canonical'
import type { WireRecord } from '../../src/protocol/records'
import { validateRecord } from '../../src/protocol/validate'
import type { generateVectors } from './generate'

const vectors = JSON.parse(
  readFileSync(new URL('../../docs/test-vectors.json', import.meta.url), 'utf8'),
) as ReturnType<typeof generateVectors>
const v = vectors.removal
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex')

describe('test vectors: a removal and what it keeps', () => {
  it('every record is valid and carries the stable room id', () => {
    const all = [...v.records.before, v.records.removal, ...v.records.after] as WireRecord[]
    for (const record of all) {
      expect(record.room).toBe(v.room)
      expect(validateRecord(record, { room: v.room }), record.kind).toMatchObject({ ok: true })
      expect(sha256Hex(canonicalJson({ ...record, id: undefined })).slice(0, 32)).toBe(record.id)
    }
    expect(v.room).toBe(vectors.members.stableId.id)
  })

  it('the removal wins over the removed co-owner’s forged rekey; what it kept counts, nothing after does', () => {
    const { removal, before, after } = v.records
    expect(v.expected.chain).toEqual([removal.id])
    const forged = after.find((r) => r.kind === 'rekey')!
    expect(forged.id < removal.id).toBe(true)
    expect(v.expected.removed).toEqual({ [v.members.guest]: 1 })
    for (const id of removal.kept) expect(v.expected.counts[id]).toBe(true)
    for (const record of before.filter((r) => !removal.kept.includes(r.id)))
      expect(v.expected.counts[record.id], record.kind).toBe(record.from !== after[0]!.from)
    for (const record of after) expect(v.expected.counts[record.id], record.kind).toBe(false)
    const [guest, guestTab, puppet] = [after[0]!.from, after[1]!.from, after[3]!.from]
    // its new tab's bind is frozen with it: that tab acts for nobody
    expect(v.expected.frozen).toEqual({ [guest]: 1, [guestTab]: 1 })
    expect(v.expected.memberOf[guest]).toBe(v.members.guest)
    expect(v.expected.memberOf[guestTab]).toBeNull()
    expect(v.expected.memberOf[puppet]).toBeNull()
    // its goal from before its removal is stopped; the one it wrote after is nowhere
    expect(v.expected.roots).toEqual([
      { id: before[4]!.id, status: 'cancelled', authorRemoved: true },
    ])
  })
})
