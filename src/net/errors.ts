/** Typed errors of the network layer. `name` is stable: match on it. */

export class NetError extends Error {
  override name = 'NetError'
}

/** The node was used after stop(). */
export class NodeStoppedError extends NetError {
  override name = 'NodeStoppedError'
}

/** publish() was given bytes that our own validator rejects. */
export class RecordRejectedError extends NetError {
  override name = 'RecordRejectedError'
}

/** publish() was given a record larger than the cap. */
export class RecordTooLargeError extends NetError {
  override name = 'RecordTooLargeError'
  constructor(
    readonly size: number,
    readonly max: number,
  ) {
    super(`record of ${size} bytes exceeds the ${max}-byte cap`)
  }
}

/** A room name that cannot be used (empty or too long). */
export class InvalidRoomError extends NetError {
  override name = 'InvalidRoomError'
}

/** Init carried something unusable (no relay address, bad multiaddr…). */
export class InvalidInitError extends NetError {
  override name = 'InvalidInitError'
}

/** A peer broke a wire protocol (bad frame, over a cap, wrong room). */
export class ProtocolViolationError extends NetError {
  override name = 'ProtocolViolationError'
}

/** A wire exchange did not complete in time. */
export class NetTimeoutError extends NetError {
  override name = 'NetTimeoutError'
}

/** No identity slot could be taken (IndexedDB or Web Locks unavailable). */
export class IdentityUnavailableError extends NetError {
  override name = 'IdentityUnavailableError'
}
