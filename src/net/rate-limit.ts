/**
 * Per-neighbour gossip rate limit: a token bucket per peer that sends us
 * gossip, charged before the message's signature is checked, the record
 * unsealed and its own signature checked (two Ed25519 checks on the main
 * thread, ~1.6 ms each in pure JS). What an empty bucket refuses is dropped
 * unread: it costs a subtraction, nothing more. Pure: the clock is handed in.
 */
import {
  GOSSIP_BUCKET_CAPACITY,
  GOSSIP_BUCKET_REFILL_PER_S,
  GOSSIP_BYTES_PER_TOKEN,
  GOSSIP_BUCKET_IDLE_MS,
} from './constants'

export interface BucketLimits {
  /** tokens a full bucket holds: the burst a neighbour may send at once */
  capacity: number
  /** tokens added per second: the rate it may keep up */
  refillPerS: number
  /** a message costs one token, plus one per this many bytes */
  bytesPerToken: number
}

export const GOSSIP_LIMITS: BucketLimits = {
  capacity: GOSSIP_BUCKET_CAPACITY,
  refillPerS: GOSSIP_BUCKET_REFILL_PER_S,
  bytesPerToken: GOSSIP_BYTES_PER_TOKEN,
}

/** Tokens one message of `bytes` bytes costs. */
export function messageCost(bytes: number, limits: BucketLimits = GOSSIP_LIMITS): number {
  return 1 + Math.floor(bytes / limits.bytesPerToken)
}

interface Bucket {
  tokens: number
  at: number
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>()

  constructor(private readonly limits: BucketLimits = GOSSIP_LIMITS) {}

  /** Take `cost` tokens from `peer`'s bucket; false (and nothing taken) if it has too few. */
  take(peer: string, cost: number, now: number): boolean {
    const bucket = this.refilled(peer, now)
    if (bucket.tokens < cost) return false
    bucket.tokens -= cost
    return true
  }

  /** Tokens left for `peer` now. */
  tokens(peer: string, now: number): number {
    return this.refilled(peer, now).tokens
  }

  /** Forget buckets that have been full for a while, so the map does not grow with every peer ever seen. */
  prune(now: number): void {
    for (const [peer, bucket] of this.buckets) {
      const full = bucket.tokens + ((now - bucket.at) / 1000) * this.limits.refillPerS
      if (full >= this.limits.capacity && now - bucket.at > GOSSIP_BUCKET_IDLE_MS) {
        this.buckets.delete(peer)
      }
    }
  }

  get size(): number {
    return this.buckets.size
  }

  private refilled(peer: string, now: number): Bucket {
    let bucket = this.buckets.get(peer)
    if (bucket === undefined) {
      bucket = { tokens: this.limits.capacity, at: now }
      this.buckets.set(peer, bucket)
      return bucket
    }
    // a clock that steps back refills nothing (and takes nothing back)
    const elapsed = Math.max(0, now - bucket.at)
    bucket.tokens = Math.min(
      this.limits.capacity,
      bucket.tokens + (elapsed / 1000) * this.limits.refillPerS,
    )
    bucket.at = Math.max(bucket.at, now)
    return bucket
  }
}
