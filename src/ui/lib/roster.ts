/**
 * Who is in the room, by role, from the presence beats this tab hears (plus
 * itself), and what that means for a plan: a missing role or capability
 * stalls it, and the person can fix that by opening a tab.
 */
import { CAPABILITIES, type Capability } from '../../llm/types'
import type { RoleActivity, SwarmMember } from '../../runtime/types'
import { CAPABILITY_VERBS } from './status'
import { mergeToolGroups, type ToolGroup } from '../../protocol/tool-groups'

export interface Roster {
  decomposers: number
  scorers: number
  executors: number
  /** capabilities no live executor offers */
  missing: Capability[]
  /** peers in the room that this tab cannot reach: their roles are unknown here */
  outOfReach: number
  /** the tool groups its executors announce, merged (issue 57): what the room learns of them */
  tools: ToolGroup[]
  /** what cannot happen until someone joins, in words; empty when the swarm is complete */
  problems: string[]
}

/** What this tab's links say about the room (lib/links.ts outOfReach, cutOff). */
export interface Reach {
  /** peers known to be in the room that this tab cannot reach */
  outOfReach: number
  /** this tab reaches no peer at all, while it knows some (links.ts cutOff) */
  cutOff: boolean
  /** peers known to be in the room (the relay named them) */
  known: number
}

const NO_TROUBLE: Reach = { outOfReach: 0, cutOff: false, known: 0 }

/** QUORUM_VOTES of src/protocol/rules: a split needs this many scorers to be accepted. */
const SCORERS_NEEDED = 2

/** This tab as a member of the swarm it hears (its own beat never comes back to it). */
export function selfMember(activity: RoleActivity): SwarmMember {
  return {
    peerId: '',
    role: activity.role,
    model: activity.model,
    offline: activity.offline,
    capabilities: activity.capabilities,
    healthy: activity.healthy,
    load: 0,
    capacity: 0,
    holding: [],
    lastSeenMs: 0,
  }
}

export function rosterOf(activity: RoleActivity, reach: Reach = NO_TROUBLE): Roster {
  const self = selfMember(activity)
  const members = activity.role === 'observer' ? activity.swarm : [self, ...activity.swarm]
  const count = (role: SwarmMember['role']) => members.filter((m) => m.role === role).length
  const executors = members.filter((m) => m.role === 'executor')
  const offered = new Set(executors.flatMap((m) => m.capabilities))
  const missing = CAPABILITIES.filter((c) => !offered.has(c))
  const roster = {
    decomposers: count('decomposer'),
    scorers: count('scorer'),
    executors: executors.length,
    missing,
    outOfReach: reach.outOfReach,
    tools: mergeToolGroups(executors.map((m) => m.tools ?? [])),
    problems: [] as string[],
  }
  // a tab that hears nobody knows nothing of the others' roles: "no scorer" would be false
  if (reach.cutOff) {
    roster.problems.push(
      `${reach.known === 1 ? 'One peer is' : `${reach.known} peers are`} in this room and not linked to this tab: who does what is unknown here until they are.`,
    )
    return roster
  }
  if (reach.outOfReach > 0) {
    roster.problems.push(
      `${reach.outOfReach === 1 ? 'One peer' : `${reach.outOfReach} peers`} in this room ${reach.outOfReach === 1 ? 'is' : 'are'} out of reach: ${reach.outOfReach === 1 ? 'its role is' : 'their roles are'} unknown here, and no work goes to or from ${reach.outOfReach === 1 ? 'it' : 'them'}.`,
    )
  }
  if (roster.decomposers === 0) roster.problems.push('No decomposer: goals will not be split.')
  if (roster.scorers < SCORERS_NEEDED) {
    roster.problems.push(
      `${roster.scorers === 0 ? 'No scorer' : 'Only 1 scorer'}: a split needs ${SCORERS_NEEDED} scorers to be accepted.`,
    )
  }
  if (roster.executors === 0) roster.problems.push('No executor: tasks will wait.')
  else if (missing.length) {
    const what = missing.map((c) => CAPABILITY_VERBS[c])
    // code and live lookups are opt-in (issue 24): say where a person turns them on
    const tools = missing.some((c) => c !== 'can_write_text')
      ? ' An executor tab turns them on under “What this executor does”.'
      : ''
    roster.problems.push(
      `No executor can ${what.join(' or ')}: such tasks wait until one does.${tools}`,
    )
  }
  // a member whose beats say it cannot work (its model broken or rate-limited, its budget
  // paused) is in the room but takes no work: say so, not only count it (issue 56)
  for (const role of ['decomposer', 'scorer', 'executor'] as const) {
    const idle = members.filter((m) => m.role === role && !m.healthy).length
    if (idle === 0) continue
    roster.problems.push(
      idle === 1
        ? `1 ${role} is not working now (its model fails, or its spending is paused): it takes no work until it does.`
        : `${idle} ${role}s are not working now (their model fails, or their spending is paused): they take no work until they do.`,
    )
  }
  return roster
}
