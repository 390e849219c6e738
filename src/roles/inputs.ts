/**
 * What one input does to the peer's state, before its roles look at the
 * whole (peer.ts stepPeer): a record joins the plan, a beat the swarm view,
 * an LLM answer goes to the role that asked, a command changes the settings.
 */
import { ignoredSteering } from './steering-log'
import { syncEnded } from './neighbours'
import { hearPresence } from './view'
import { callFinished } from './model-health'
import { handleCommand } from './commands'
import type { PeerState, RoleLogic } from './peer'
import type { Effects, PeerInput } from './types'

export function applyInput(
  peer: PeerState,
  logic: RoleLogic,
  fx: Effects,
  input: PeerInput,
  now: number,
): void {
  switch (input.type) {
    case 'record':
      // a new record (not one already held) makes the room busy
      if (input.record.room === peer.config.room && peer.plan.add(input.record)) {
        peer.lastPlanAt = now
        const ignored = ignoredSteering(peer, input.record)
        if (ignored) fx.events.push(ignored)
      }
      break
    case 'presence':
      if (input.presence.from !== peer.config.peerId && input.presence.room === peer.config.room) {
        const known = peer.view.peers.has(input.presence.from)
        if (hearPresence(peer.view, input.presence, now) && !known) peer.newcomerHeard = true
      }
      break
    case 'llm': {
      const work = peer.work.get(input.requestId)
      if (!work) break // aborted meanwhile, or a duplicate answer
      peer.work.delete(input.requestId)
      fx.events.push({
        type: 'llm-finished',
        request: work.requestId,
        kind: work.kind,
        ok: input.outcome.ok,
      })
      callFinished(peer, fx, work, input.outcome, now)
      logic.onLlm(peer, fx, work, input.outcome, now)
      break
    }
    case 'command':
      handleCommand(peer, fx, input.command, now)
      break
    case 'tick':
      break
    case 'synced':
      syncEnded(peer, fx, now, input.answered === true)
      break
  }
}
