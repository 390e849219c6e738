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
      return `{${members(value)
        .map(([, member]) => member)
        .join(',')}}`
    }
    default:
      throw new NonCanonicalValueError(`cannot encode a ${typeof value}`)
  }
}

/** A plain object's members in canonical order, each encoded as `"key":value`. */
function members(value: object): [string, string][] {
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) {
    throw new NonCanonicalValueError('only plain objects can be encoded')
  }
  const record = value as Record<string, unknown>
  return Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => [key, `${JSON.stringify(key)}:${canonicalJson(record[key])}`])
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
  const all = members(value)
  const join = (list: [string, string][]) => `{${list.map(([, member]) => member).join(',')}}`
  return { whole: join(all), without: join(all.filter(([k]) => k !== key)) }
}

const encoder = new TextEncoder()

export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalJson(value))
}
