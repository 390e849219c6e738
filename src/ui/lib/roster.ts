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
  /** the tool groups its executors announce, merged (issue 57): what the room learns of them */
  tools: ToolGroup[]
  /** what cannot happen until someone joins, in words; empty when the swarm is complete */
  problems: string[]
}

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

export function rosterOf(activity: RoleActivity): Roster {
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
    tools: mergeToolGroups(executors.map((m) => m.tools ?? [])),
    problems: [] as string[],
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
  return roster
}
