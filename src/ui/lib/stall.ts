/**
 * Why a goal does not move, in words, from the presence beats this tab
 * hears (issue 43): "no decomposer in the room" is not the same as "two
 * decomposers are here but their model fails", and the person fixes each
 * differently (open a tab, or fix the model). Pure.
 */
import type { Capability, Role, RoleActivity, SwarmMember } from '../../runtime/types'
import { CAPABILITY_VERBS } from './status'
import { selfMember } from './roster'

/** QUORUM_VOTES of src/protocol/rules: a split needs this many scorers' votes. */
const SCORERS_NEEDED = 2

export interface Stall {
  text: string
  /** a role whose new tab would unblock it (offer the room's link), or null */
  open: Role | null
  /** the tone: 'bad' when nothing can move until someone acts */
  tone: 'idle' | 'bad'
}

/** This tab (unless it only watches) and the live peers it hears. */
function members(activity: RoleActivity): SwarmMember[] {
  if (activity.role === 'observer') return activity.swarm
  // a tab its budget paused takes no work, as its beat says to the others
  const self = {
    ...selfMember(activity),
    healthy: activity.healthy && !activity.budget?.decision.paused,
  }
  return [self, ...activity.swarm]
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** This tab's own error, when it is one of the failing role's tabs: the others' errors never travel. */
function ownError(activity: RoleActivity, role: Role): string {
  return activity.role === role && activity.lastError ? ` (this tab: ${activity.lastError})` : ''
}

/** Why a root or child goal waits for proposals or for scores; null when it is not waiting. */
export function goalStall(
  status: 'awaiting-proposals' | 'scoring' | string,
  activity: RoleActivity,
): Stall | null {
  const all = members(activity)
  if (status === 'awaiting-proposals') {
    const decomposers = all.filter((m) => m.role === 'decomposer')
    const working = decomposers.filter((m) => m.healthy).length
    if (decomposers.length === 0)
      return {
        text: 'No decomposer in the room: nobody can split this goal. Open one:',
        open: 'decomposer',
        tone: 'bad',
      }
    if (working === 0)
      return {
        text: `${plural(decomposers.length, 'decomposer')} present, but ${decomposers.length === 1 ? 'its' : 'their'} model is failing or paused${ownError(activity, 'decomposer')}: no split comes until one works.`,
        open: null,
        tone: 'bad',
      }
    return {
      text: `Waiting for ${plural(working, 'decomposer')} to propose splits.`,
      open: null,
      tone: 'idle',
    }
  }
  if (status === 'scoring') {
    const scorers = all.filter((m) => m.role === 'scorer')
    const working = scorers.filter((m) => m.healthy).length
    if (scorers.length < SCORERS_NEEDED)
      return {
        text: `A split needs ${SCORERS_NEEDED} scorers; the room has ${scorers.length}. Open one:`,
        open: 'scorer',
        tone: 'bad',
      }
    if (working < SCORERS_NEEDED)
      return {
        text: `${plural(scorers.length, 'scorer')} present, but ${scorers.length - working} of them ${scorers.length - working === 1 ? 'is' : 'are'} failing or paused${ownError(activity, 'scorer')}: a split needs ${SCORERS_NEEDED} working scorers.`,
        open: null,
        tone: 'bad',
      }
    return {
      text: `Waiting for scores. A split wins as soon as ${SCORERS_NEEDED} scorers rate it 0.6 or more; after 30 s the best mean among splits with at least ${SCORERS_NEEDED} votes wins.`,
      open: null,
      tone: 'idle',
    }
  }
  return null
}

/**
 * A leaf that needs a capability nobody in the room offers: what to do.
 * `here`: this tab is an executor, so it can turn the capability on itself.
 */
export function gapWords(capability: Capability, here: boolean): string {
  const lead = `Nobody in the room offers to ${CAPABILITY_VERBS[capability]} (${capability}).`
  return here
    ? `${lead} This tab is an executor: turn it on here.`
    : `${lead} Turn it on in an executor tab (“What this executor does”), or open one:`
}

/** A leaf needs a person's tool group nobody in the room offers (issue 57): what to do about it. */
export function toolGapWords(tool: string): string {
  return (
    `Nobody in the room offers the tools of “${tool}”: only its person's executor can ` +
    '(their MCP server, turned on under “Your tools (MCP servers)”, or an agent’s --mcp), ' +
    'and it waits until one does.'
  )
}
