/**
 * How each node's status looks: an icon, words and a tone. The tone picks a
 * colour, but the icon and the words carry the meaning on their own (never
 * colour alone).
 */
import { goalStatusWords } from '../../plan/goal-status'
import type { FailureReason, GoalPhase, GoalView, SlotView } from '../../plan/tree'
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

const GOAL_LOOKS: Record<GoalPhase, { icon: IconName; tone: Tone }> = {
  'awaiting-proposals': { icon: 'pending', tone: 'idle' },
  scoring: { icon: 'scale', tone: 'busy' },
  'awaiting-approval': { icon: 'pause', tone: 'idle' },
  paused: { icon: 'pause', tone: 'idle' },
  running: { icon: 'play', tone: 'busy' },
  'awaiting-rollup': { icon: 'rollup', tone: 'idle' },
  'rolling-up': { icon: 'rollup', tone: 'busy' },
  complete: { icon: 'check', tone: 'good' },
  // rolled up, but parts under it failed: the result lacks them (issue 43)
  partial: { icon: 'warning', tone: 'bad' },
  failed: { icon: 'cross', tone: 'bad' },
  cancelled: { icon: 'cancelled', tone: 'muted' },
}

/** A goal's status: its phase in the words every view uses (plan/goal-status.ts). */
export function goalLook(goal: GoalView, self = ''): StatusLook {
  return {
    ...GOAL_LOOKS[goal.phase],
    label: goalStatusWords(goal, (peer) => who(peer, self)),
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

/** A leaf whose executors can do it but none can work now: said at once, not after minutes (issue 56). */
function noWorkerLook(capability: Capability): StatusLook {
  return {
    icon: 'warning',
    label: `Waiting: no working executor offers ${CAPABILITY_LABELS[capability]}`,
    tone: 'bad',
  }
}

/** Why a leaf failed, the same words as its details, the export and the terminal (plan/why.ts). */
export function failedLook(why: FailureReason | null): StatusLook {
  switch (why?.kind) {
    case 'gap':
      return { icon: 'warning', label: 'Capability gap', tone: 'bad' }
    case 'unworked':
      return { icon: 'cross', label: 'Failed: no working executor took it', tone: 'bad' }
    case 'blocked':
      return { icon: 'cross', label: 'Blocked: depends on a failed step', tone: 'bad' }
    case 'attempts':
      return { icon: 'cross', label: `Failed: ${why.detail}`, tone: 'bad' }
    default:
      return { icon: 'cross', label: 'Failed', tone: 'bad' }
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
      if (slot.noWorker) return noWorkerLook(slot.noWorker.capability)
      if (slot.toolGap) return toolGapLook(slot.toolGap.tool)
      return { icon: 'pause', label: 'Atomic, waiting for earlier steps', tone: 'idle' }
    case 'approval':
      return { icon: 'pause', label: "Waiting for the author's approval", tone: 'idle' }
    case 'open':
      if (slot.capabilityGap) return gapLook(slot.capabilityGap.capability)
      if (slot.noWorker) return noWorkerLook(slot.noWorker.capability)
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
      return failedLook(slot.why)
  }
}
