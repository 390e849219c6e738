/**
 * How each node's status looks: an icon, words and a tone. The tone picks a
 * colour, but the icon and the words carry the meaning on their own (never
 * colour alone).
 */
import type { GoalView, SlotView } from '../../plan/tree'
import type { Capability } from '../../runtime/types'
import { shortPeer } from './format'
import type { IconName } from './icons'

export type Tone = 'idle' | 'busy' | 'good' | 'bad' | 'muted'

export interface StatusLook {
  icon: IconName
  label: string
  tone: Tone
}

export const CAPABILITY_LABELS: Record<Capability, string> = {
  can_write_text: 'writing',
  can_run_code: 'code',
  can_query_api: 'API lookup',
}

/** what an executor with the capability can do, as a verb phrase: "nobody can …" */
export const CAPABILITY_VERBS: Record<Capability, string> = {
  can_write_text: 'write text',
  can_run_code: 'run code',
  can_query_api: 'look up live facts',
}

export const CAPABILITY_DESCRIPTIONS: Record<Capability, string> = {
  can_write_text: 'Write text: plans, summaries, lists, messages',
  can_run_code: 'Run code: computations and scripts, in a sandbox',
  can_query_api: 'Look up live facts: prices, news, schedules',
}

function who(peerId: string, self: string): string {
  return peerId === self ? 'you' : shortPeer(peerId)
}

export function goalLook(goal: GoalView, self = ''): StatusLook {
  switch (goal.status) {
    case 'awaiting-proposals':
      return { icon: 'pending', label: 'Awaiting proposals', tone: 'idle' }
    case 'scoring':
      return {
        icon: 'scale',
        label: `Scoring ${goal.proposals.length} proposal${goal.proposals.length === 1 ? '' : 's'}`,
        tone: 'busy',
      }
    case 'awaiting-approval':
      return {
        icon: 'pause',
        label: `Waiting for the author's approval (${who(goal.createdBy, self)})`,
        tone: 'idle',
      }
    case 'accepted':
      if (goal.paused) return { icon: 'pause', label: 'Paused by its author', tone: 'idle' }
      if (goal.rollup.status === 'claimed' && goal.rollup.holder) {
        return {
          icon: 'rollup',
          label: `Rolling up (${who(goal.rollup.holder, self)})`,
          tone: 'busy',
        }
      }
      return { icon: 'play', label: 'Split accepted, in progress', tone: 'busy' }
    case 'done':
      // rolled up, but parts under it failed: the result lacks them (issue 43)
      if (goal.outcome === 'partial')
        return {
          icon: 'warning',
          label: `Finished with ${goal.failedParts} failed part${goal.failedParts === 1 ? '' : 's'}`,
          tone: 'bad',
        }
      return { icon: 'check', label: 'Done', tone: 'good' }
    case 'failed':
      return { icon: 'cross', label: 'Failed', tone: 'bad' }
    case 'cancelled':
      return { icon: 'cancelled', label: 'Cancelled', tone: 'muted' }
  }
}

/** A leaf that waits for a capability no executor of the room offers: said at once, not after minutes. */
function toolGapLook(tool: string): StatusLook {
  return {
    icon: 'warning',
    label: `Waiting: nobody in the room offers the tools of ${tool}`,
    tone: 'bad',
  }
}

function gapLook(capability: Capability): StatusLook {
  return {
    icon: 'warning',
    label: `Waiting: nobody in the room offers ${CAPABILITY_LABELS[capability]}`,
    tone: 'bad',
  }
}

/** A subgoal that is a leaf (or not yet classified); composite subgoals show their child goal. */
export function slotLook(slot: SlotView, self = '', writer: string | null = null): StatusLook {
  if (slot.goal) return goalLook(slot.goal, self)
  // its holder still holds it in its presence (ui/lib/writing.ts): the model is writing it
  if (slot.status === 'claimed' && writer)
    return { icon: 'pen', label: `Writing… (${who(writer, self)})`, tone: 'busy' }
  switch (slot.status) {
    case 'waiting':
      if (slot.capabilityGap) return gapLook(slot.capabilityGap.capability)
      if (slot.toolGap) return toolGapLook(slot.toolGap.tool)
      return { icon: 'pause', label: 'Atomic, waiting for earlier steps', tone: 'idle' }
    case 'approval':
      return { icon: 'pause', label: "Waiting for the author's approval", tone: 'idle' }
    case 'open':
      if (slot.capabilityGap) return gapLook(slot.capabilityGap.capability)
      if (slot.toolGap) return toolGapLook(slot.toolGap.tool)
      return { icon: 'open', label: 'Atomic, open for executors', tone: 'idle' }
    case 'claimed':
      return {
        icon: 'gear',
        label: slot.leaf?.holder ? `Claimed by ${who(slot.leaf.holder, self)}` : 'Claimed',
        tone: 'busy',
      }
    case 'active':
      return { icon: 'play', label: 'In progress', tone: 'busy' }
    case 'done':
      return { icon: 'check', label: 'Done', tone: 'good' }
    case 'failed':
      if (slot.leaf?.gap) return { icon: 'warning', label: 'Capability gap', tone: 'bad' }
      if (slot.blocked)
        return { icon: 'cross', label: 'Blocked: an earlier step failed', tone: 'bad' }
      return { icon: 'cross', label: 'Failed', tone: 'bad' }
  }
}
