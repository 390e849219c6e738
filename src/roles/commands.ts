/**
 * The person's commands to the core (its settings, its model, its consent,
 * having joined): applied to the peer's state; a change others act on is
 * beaten at once.
 */
import { modelChanged, modelChecked } from './model-health'
import type { PeerState } from './peer'
import type { Command, Effects } from './types'

export function handleCommand(peer: PeerState, fx: Effects, command: Command, now: number): void {
  switch (command.type) {
    case 'set-capabilities':
      peer.config.capabilities = [...command.capabilities]
      peer.config.writesUnrunCode = command.writesUnrunCode ?? false
      peer.config.tools = [...(command.tools ?? [])]
      peer.beatDue = true
      break
    case 'set-model':
      peer.config.model = command.model
      peer.config.offline = command.offline
      for (const record of peer.plan.records()) {
        if (record.kind === 'failure' && record.from === peer.config.peerId)
          peer.forgiven.add(record.id)
      }
      modelChanged(peer, fx, now)
      peer.beatDue = true
      break
    case 'model-checked':
      modelChecked(peer, fx, command.verdict, now)
      break
    case 'joined':
      peer.warmFrom ??= now
      break
    case 'set-consent': {
      const wasPaused = peer.config.consent?.paused === true
      peer.config.consent = {
        authors: command.consent.authors === null ? null : [...command.consent.authors],
        paused: command.consent.paused,
        skipGoals: [...command.consent.skipGoals],
      }
      // a paused peer says so (as not healthy) so that others do not wait for it to claim
      if (wasPaused !== command.consent.paused) peer.beatDue = true
      break
    }
  }
}
