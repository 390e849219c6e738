/**
 * Content hashes. Every id in the protocol is the first ID_BYTES of a
 * SHA-256 over canonical JSON, written as lowercase hex.
 */
import { sha256 } from './sha256'
import { bytesToHex } from '@noble/hashes/utils.js'
import { canonicalBytes, canonicalJson } from './canonical'

/**
 * 16 bytes (128 bits): accidental collisions need ~2^64 records, far beyond
 * any plan, and ids stay short on the wire (32 hex chars).
 */
export const ID_BYTES = 16
export const ID_HEX_LENGTH = ID_BYTES * 2

/** The id of any JSON value: hex(sha256(canonical(value)))[0, 32). */
export function contentId(value: unknown): string {
  return canonicalId(canonicalJson(value))
}

/** The id of a value whose canonical JSON is already at hand. */
export function canonicalId(canonical: string): string {
  return bytesToHex(sha256(utf8.encode(canonical)).subarray(0, ID_BYTES))
}
const utf8 = new TextEncoder()

/**
 * Rendezvous (highest-random-weight) weight of a peer for a subject: the
 * first 6 bytes of sha256(canonical([subject, peerId])) as an integer. Every
 * peer computes the same ranking of peers for a task without talking, and the
 * ranking is independent of clocks and arrival order. 6 bytes keep the value
 * an exact JavaScript integer; ties (1 in 2^48) fall back to peer id order.
 */
export function rendezvousWeight(subject: string, peerId: string): number {
  const key = `${subject}\n${peerId}`
  let weight = weights.get(key)
  if (weight === undefined) {
    const digest = sha256(canonicalBytes([subject, peerId]))
    weight = 0
    for (let i = 0; i < 6; i++) weight = weight * 256 + digest[i]!
    remember(weights, key, weight)
  }
  return weight
}

/**
 * Ranks and derived ids are asked for again and again (every step derives
 * the plan anew): remember them. Bounded so a long-lived peer cannot grow
 * without end; a cleared cache only costs recomputation.
 */
const MEMO_LIMIT = 100_000
const weights = new Map<string, number>()

export function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= MEMO_LIMIT) cache.clear()
  cache.set(key, value)
}

/** Peers sorted by rendezvous weight for a subject, best first (ties: lower peer id first). */
export function rendezvousOrder(subject: string, peerIds: Iterable<string>): string[] {
  return [...peerIds]
    .map((peer) => ({ peer, weight: rendezvousWeight(subject, peer) }))
    .sort((a, b) => b.weight - a.weight || (a.peer < b.peer ? -1 : a.peer > b.peer ? 1 : 0))
    .map((entry) => entry.peer)
}

/** Compare two peers' claims on a subject: negative when `a` outranks `b`. */
export function compareRank(subject: string, a: string, b: string): number {
  const diff = rendezvousWeight(subject, b) - rendezvousWeight(subject, a)
  if (diff !== 0) return diff
  return a < b ? -1 : a > b ? 1 : 0
}
