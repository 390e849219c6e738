/** packRecords/unpackRecords: what a verification thread is sent is the batch, record for record. */
import { describe, expect, it } from 'vitest'
import {
  packRecords,
  packVerdicts,
  unpackRecords,
  unpackVerdicts,
  type BatchVerdict,
} from './batch-verify'

describe('packed records', () => {
  it('unpack to the records packed, in order, empty ones and views of bigger buffers too', () => {
    const big = new Uint8Array(100).map((_, i) => i)
    const records = [
      Uint8Array.of(1, 2, 3),
      new Uint8Array(0),
      big.subarray(40, 60),
      Uint8Array.of(9),
    ]
    const packed = packRecords(records)
    expect(packed.buffer.byteLength).toBe(24)
    expect(unpackRecords(packed)).toEqual(records)
    expect(unpackRecords(packRecords([]))).toEqual([])
  })

  it('verdicts unpack to the verdicts packed', () => {
    const verdicts: BatchVerdict[] = [
      { ok: true },
      { ok: false, reason: 'bad-signature', detail: 'x' },
      { ok: true },
      { ok: false, reason: 'schema', detail: 'y' },
    ]
    expect(unpackVerdicts(packVerdicts(verdicts))).toEqual(verdicts)
    expect(packVerdicts(verdicts).rejected.length).toBe(2)
  })
})
