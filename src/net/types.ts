/**
 * The contract between the network layer and the rest of the peer.
 *
 * The network layer knows nothing of the plan protocol: it moves opaque,
 * signed records (bytes) between peers, asks the protocol layer whether each
 * one is valid, and keeps records in sync between peers. The protocol layer
 * (src/protocol) supplies the verdicts; the plan store (src/plan) supplies a
 * RecordStore.
 */

/** What a validator decides about bytes received from the network. */
export type Verdict =
  /** valid and new: deliver it and forward it */
  | 'accept'
  /** invalid (malformed, forged, oversized, wrong sender): drop it and penalise the sender */
  | 'reject'
  /** valid but not worth forwarding (a duplicate, a stale presence beat): drop it quietly */
  | 'ignore'

/**
 * A set of records keyed by content id, as the anti-entropy sync sees it.
 * Ids are lowercase hex strings; records are the exact bytes that were
 * gossiped (signature included), so a peer can forward them verbatim and the
 * receiver can verify them again.
 */
export interface RecordStore {
  /** the ids of every record held */
  ids(): Iterable<string>
  /** the bytes of one record, or undefined when not held */
  get(id: string): Uint8Array | undefined
  /**
   * Verify and add a record received from `from` (a PeerId string) by sync.
   * Never throws: bad input gives 'reject' (and a log line).
   */
  add(bytes: Uint8Array, from: string): Promise<Verdict>
}
