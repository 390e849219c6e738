/**
 * The four roles. Observer: makes no LLM calls and publishes nothing (not
 * even presence); it only keeps the plan state that every peer keeps.
 */
import type { Role } from '../protocol/records'
import { decomposer } from './decomposer'
import { executor } from './executor'
import { createPeer, stepPeer, type PeerState, type RoleLogic } from './peer'
import { scorer } from './scorer'
import type { Effects, PeerConfig, PeerInput } from './types'

const observer: RoleLogic = {
  onLlm() {},
  reconcile() {},
}

export const ROLES: Record<Role, RoleLogic> = { decomposer, scorer, executor, observer }

/** Advance a peer by a batch of inputs at local time `now`. */
export function step(
  peer: PeerState,
  inputs: PeerInput | readonly PeerInput[],
  now: number,
): Effects {
  return stepPeer(peer, ROLES[peer.config.role], inputs, now)
}

export { createPeer }
export type { PeerState, PeerConfig, PeerInput, Effects }
