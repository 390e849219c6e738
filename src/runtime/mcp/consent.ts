/**
 * Consent per tool and per person (issue 57), as a pure rule the toolbox
 * applies at every call, in code: what the model asked for does not enter
 * into it, only which tool, whose goal, and what the tool's person allowed.
 *
 * - Every tool is off until its person turns it on.
 * - Turned on, a read-only tool is for any member's goal; a tool that may
 *   write (not read-only by its annotations), or that reaches beyond its
 *   server (open world), is for its person's own goals only, unless they
 *   open it to anyone.
 * - Another member's goal that calls a tool kept for its person's own goals
 *   waits for their approval (a tab: they are there to answer) or is
 *   refused (a headless agent: nobody to ask), and the refusal says why.
 */
import type { McpConsent, McpToolInfo, ToolAccess } from './types'

/**
 * What a tool is for once its person turns it on, unless they choose
 * otherwise: anyone's goals for one that only reads what its server holds;
 * their own goals for one that writes, or that reaches beyond its server
 * (open world: a fetch from their machine could reach their own network).
 */
export function accessWhenTurnedOn(
  tool: Pick<McpToolInfo, 'readOnly' | 'openWorld'>,
): Exclude<ToolAccess, 'off'> {
  return tool.readOnly && !tool.openWorld ? 'anyone' : 'own'
}

export function accessOf(consent: McpConsent, group: string, tool: string): ToolAccess {
  return consent[group]?.[tool] ?? 'off'
}

export type CallDecision = { kind: 'allow' } | { kind: 'ask' } | { kind: 'refuse'; why: string }

export interface CallContext {
  /** the goal the call works for is its person's own (any of their tabs' or agents') */
  ownGoal: boolean
  /** someone can be asked now (a tab); false for a headless agent */
  canAsk: boolean
}

/** May this call run now? */
export function decideCall(
  access: ToolAccess,
  group: string,
  tool: string,
  context: CallContext,
): CallDecision {
  const name = `${group}/${tool}`
  if (access === 'off')
    return { kind: 'refuse', why: `${name} is off: its person has not turned it on` }
  if (access === 'anyone' || context.ownGoal) return { kind: 'allow' }
  if (context.canAsk) return { kind: 'ask' }
  return {
    kind: 'refuse',
    why: `${name} is kept for its person's own goals, and this is another member's goal`,
  }
}

/** What a tool may do, in a few words, from its annotations (for its person: a tab, an agent's lines). */
export function toolTraits(
  tool: Pick<McpToolInfo, 'readOnly' | 'destructive' | 'openWorld'>,
): string[] {
  const traits = [
    tool.readOnly ? 'read-only' : tool.destructive ? 'may delete or overwrite' : 'writes',
  ]
  if (tool.openWorld) traits.push('reaches outside')
  return traits
}
