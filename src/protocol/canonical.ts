/**
 * Canonical JSON: the one byte encoding every peer signs and hashes.
 *
 * Objects have their keys sorted by UTF-16 code unit order (JavaScript's
 * default sort), there is no whitespace, strings use JSON.stringify's
 * escaping, and only these values are allowed: strings, booleans, null,
 * finite numbers (integers print without exponent up to 2^53) and arrays and
 * plain objects of them. Because the encoding is unique, a receiver can
 * re-encode what it parsed and insist on byte equality: two peers never
 * disagree about the bytes of one record, so ids and signatures agree.
 */

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json }

export class NonCanonicalValueError extends Error {
  override name = 'NonCanonicalValueError'
}

export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(value)) throw new NonCanonicalValueError('non-finite number')
      // -0 and 0 must print the same; JSON.stringify(-0) is already "0"
      return JSON.stringify(value)
    case 'object': {
      if (value === null) return 'null'
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
      return objectJson(value, undefined).whole
    }
    default:
      throw new NonCanonicalValueError(`cannot encode a ${typeof value}`)
  }
}

/**
 * A plain object's canonical JSON, and the same without the member `skip`:
 * members in key order, each encoded once and appended to both (one string
 * each, no array of members: ids are hashed over this on every record made).
 */
function objectJson(value: object, skip: string | undefined): { whole: string; without: string } {
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) {
    throw new NonCanonicalValueError('only plain objects can be encoded')
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  let whole = '{'
  let without = '{'
  for (const key of keys) {
    const field = record[key]
    if (field === undefined) continue
    const member = `${JSON.stringify(key)}:${canonicalJson(field)}`
    whole += whole.length === 1 ? member : `,${member}`
    if (skip !== undefined && key !== skip) without += without.length === 1 ? member : `,${member}`
  }
  return { whole: `${whole}}`, without: `${without}}` }
}

/**
 * The canonical JSON of a plain object, and of the same object without one
 * of its keys, encoding each member once. A received record is checked
 * against both: the whole is what was signed, the rest is what its id hashes.
 */
export function canonicalJsonWithout(
  value: object,
  key: string,
): { whole: string; without: string } {
  return objectJson(value, key)
}

const encoder = new TextEncoder()

export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalJson(value))
}
