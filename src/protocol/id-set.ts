/**
 * The set of ids one side of a sync reconciles (reconcile.ts): held ids
 * plus tombstones, sorted, and encoded back to back so that a range's
 * fingerprint is one SHA-256 over one subarray. Pure.
 *
 * A late joiner's set grows session after session; `withHeld` makes the
 * next session's set from the last one and the ids added since, copying the
 * encoded runs between them instead of encoding every id again.
 */
import { sha256 } from './sha256'

/** An upper bound: an id, or null for "past every id". */
export type Bound = string | null

/** Bytes of a fingerprint on the wire. 16 bytes: collisions need 2^64 work. */
export const FINGERPRINT_BYTES = 16

/** The parts an IdSet is made of (withHeld builds them without the constructor's work). */
interface Parts {
  sorted: string[]
  bytes: Uint8Array
  offsets: Uint32Array
  tombstones: ReadonlySet<string>
}

/** The set one side reconciles: held ids plus tombstones, sorted once. */
export class IdSet {
  readonly sorted: string[]
  /** every id as u8 length ‖ bytes, in order, back to back: a range is one subarray */
  private readonly bytes: Uint8Array
  /** offsets[i] is where id i starts in `bytes`; offsets[size] is the end */
  private readonly offsets: Uint32Array
  private readonly tombstones: ReadonlySet<string>

  /**
   * `held` in any order, or with `sorted`, already sorted and distinct (a
   * store's ids as sync keeps them between sessions): then no hash set of
   * every id and no sort, which a late joiner otherwise paid for in each of
   * the twenty sessions of a 100,000-record join.
   */
  constructor(held: Iterable<string>, tombstones?: Iterable<string>)
  constructor(held: readonly string[], tombstones: Iterable<string>, options: { sorted: true })
  constructor(
    held: Iterable<string>,
    tombstones: Iterable<string> = [],
    options: { sorted?: boolean } = {},
  ) {
    if (options.sorted === true) {
      // (the overload above: a sorted list, so an array)
      const list = held as readonly string[]
      const dead = [...new Set(tombstones)].filter((id) => !hasSorted(list, id)).sort()
      this.tombstones = new Set(dead)
      this.sorted = dead.length === 0 ? [...list] : mergeSorted(list, dead)
    } else {
      const all = new Set<string>(held)
      const dead = new Set<string>()
      for (const id of tombstones) {
        if (!all.has(id)) dead.add(id)
        all.add(id)
      }
      this.tombstones = dead
      this.sorted = [...all].sort()
    }
    ;[this.bytes, this.offsets] = encodeIds(this.sorted)
  }

  get size(): number {
    return this.sorted.length
  }

  /** Whether we hold the record's bytes (so can offer it). */
  held(id: string): boolean {
    return !this.tombstones.has(id)
  }

  /** Index of the first id ≥ bound (size for null). */
  lowerIndex(bound: Bound): number {
    if (bound === null) return this.sorted.length
    let lo = 0
    let hi = this.sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.sorted[mid] as string) < bound) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  has(id: string): boolean {
    const i = this.lowerIndex(id)
    return this.sorted[i] === id
  }

  /** Fingerprint of the ids at indices [start, end). */
  fingerprint(start: number, end: number): Uint8Array {
    // one buffer for the platform's SHA-256 (native on Node: a late joiner's
    // sessions hash the whole set at each level of splitting, both sides)
    const count = encodeCount(end - start)
    const ids = this.bytes.subarray(this.offsets[start], this.offsets[end])
    const input = new Uint8Array(count.length + ids.length)
    input.set(count)
    input.set(ids, count.length)
    return sha256(input).subarray(0, FINGERPRINT_BYTES)
  }

  /** Fingerprint of the whole set (what HELLO carries). */
  fingerprintAll(): Uint8Array {
    return this.fingerprint(0, this.sorted.length)
  }

  /**
   * This set with `added` held too: `added` sorted, distinct, each a wire id
   * (lowercase hex) and none already in this set. The encoded runs of this
   * set between the new ids are copied whole, so a late joiner's next
   * session costs a copy of its set, not an encoding of every id again.
   */
  withHeld(added: readonly string[]): IdSet {
    if (added.length === 0) return this
    const [addBytes, addOffsets] = encodeIds(added)
    const n = this.sorted.length
    const parts: Parts = {
      sorted: new Array<string>(n + added.length),
      bytes: new Uint8Array(this.bytes.length + addBytes.length),
      offsets: new Uint32Array(n + added.length + 1),
      tombstones: this.tombstones,
    }
    let i = 0
    let k = 0
    let at = 0
    for (let j = 0; j <= added.length; j++) {
      const next = added[j]
      if (next !== undefined && j > 0 && next <= (added[j - 1] as string)) {
        throw new RangeError('added ids not sorted and distinct')
      }
      // this set's ids before the next new one: one run of bytes
      const end = next === undefined ? n : lowerIndexFrom(this.sorted, next, i)
      if (next !== undefined && this.sorted[end] === next) {
        throw new RangeError(`already in the set: ${next}`)
      }
      const from = this.offsets[i] as number
      const to = this.offsets[end] as number
      parts.bytes.set(this.bytes.subarray(from, to), at)
      for (; i < end; i++, k++) {
        parts.sorted[k] = this.sorted[i] as string
        parts.offsets[k] = (this.offsets[i] as number) - from + at
      }
      at += to - from
      if (next === undefined) break
      const start = addOffsets[j] as number
      const stop = addOffsets[j + 1] as number
      parts.sorted[k] = next
      parts.offsets[k++] = at
      parts.bytes.set(addBytes.subarray(start, stop), at)
      at += stop - start
    }
    parts.offsets[k] = at
    return Object.assign(Object.create(IdSet.prototype) as IdSet, parts)
  }
}

/** Value of a lowercase hex digit by char code, -1 for anything else. */
const HEX_VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i

/** Writes the bytes `hex` spells at `out[at]`; false when it is not even-length lowercase hex. */
function decodeHexInto(hex: string, out: Uint8Array, at: number): boolean {
  if (hex.length === 0 || hex.length % 2 !== 0) return false
  for (let i = 0; i < hex.length; i += 2) {
    const hi = HEX_VALUE[hex.charCodeAt(i)] ?? -1
    const lo = HEX_VALUE[hex.charCodeAt(i + 1)] ?? -1
    if (hi < 0 || lo < 0) return false
    out[at + i / 2] = hi * 16 + lo
  }
  return true
}

function encodeCount(n: number): Uint8Array {
  const out: number[] = []
  let v = n
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80)
    v = Math.floor(v / 128)
  }
  out.push(v)
  return Uint8Array.from(out)
}

/** `sorted` as u8 length ‖ bytes back to back, and where each id starts. */
function encodeIds(sorted: readonly string[]): [Uint8Array, Uint32Array] {
  let total = 0
  for (const id of sorted) total += 1 + id.length / 2
  const bytes = new Uint8Array(total)
  const offsets = new Uint32Array(sorted.length + 1)
  let at = 0
  sorted.forEach((id, i) => {
    offsets[i] = at
    bytes[at] = id.length / 2
    if (id.length > 510 || !decodeHexInto(id, bytes, at + 1)) {
      throw new RangeError(`not a hex id: ${id}`)
    }
    at += 1 + id.length / 2
  })
  offsets[sorted.length] = at
  return [bytes, offsets]
}

/** Whether the sorted list holds `id` (binary search). */
function hasSorted(sorted: readonly string[], id: string): boolean {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const at = sorted[mid] as string
    if (at === id) return true
    if (at < id) lo = mid + 1
    else hi = mid
  }
  return false
}

/** Two sorted lists of distinct ids (none in both) as one sorted list. */
export function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = new Array<string>(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length)
    out[k++] = (a[i] as string) < (b[j] as string) ? a[i++]! : b[j++]!
  while (i < a.length) out[k++] = a[i++]!
  while (j < b.length) out[k++] = b[j++]!
  return out
}

/** Index of the first id ≥ `id` in `sorted`, searching from `from`. */
function lowerIndexFrom(sorted: readonly string[], id: string, from: number): number {
  let lo = from
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((sorted[mid] as string) < id) lo = mid + 1
    else hi = mid
  }
  return lo
}
