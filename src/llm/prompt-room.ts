/**
 * What the room can do, in a decompose or score prompt, and back (for the
 * mock LLM): the capabilities its live executors offer (issue 43), and the
 * tool groups they brought (issue 57), with what each tool may do, so a
 * subgoal that needs one says so and its voters name the group in their
 * judgement (src/plan/classify.ts). Absent in the task: nothing is said, so
 * a prompt without tools is as before. Only names and the MCP annotations
 * come from other peers (src/protocol/tool-groups.ts): their alphabet has
 * no `<`, so they cannot open or close a tag.
 */
import type { OfferedTool, ToolGroup } from '../protocol/tool-groups'
import { CAPABILITIES, type Capability, type LlmTask } from './types'

/** The prompt's tag maker (prompts.ts tagger). */
type Tags = (name: string, body: string, attrs?: string) => string

/** The task's room tool groups, for decompose and score; empty otherwise. */
export function roomToolsOf(task: LlmTask): readonly ToolGroup[] {
  return task.kind === 'decompose' || task.kind === 'score' ? (task.roomTools ?? []) : []
}

const INTRO: Record<'decompose' | 'score', string> = {
  decompose:
    'Executors of the room brought these tools (their own servers). A subgoal that needs one (reading their files, querying their service) names the tool:',
  score:
    "Executors of the room brought these tools (their own servers). A subgoal that needs a group's tools names that group in its judgement's tool; otherwise tool is null:",
}

/** How a tool reads in the block: its name, then what it may do. */
function toolWords(tool: OfferedTool): string {
  const does = tool.readOnly ? 'read-only' : tool.destructive ? 'may delete or overwrite' : 'writes'
  const words = [does, ...(tool.openWorld ? ['reaches outside'] : [])]
  if (!tool.anyone) words.push("asks its person first for others' goals")
  return `${tool.name} (${words.join(', ')})`
}

/** The block's text, or null when the room has no tool group. */
export function toolsText(
  kind: 'decompose' | 'score',
  groups: readonly ToolGroup[],
): string | null {
  if (groups.length === 0) return null
  const lines = groups.map((group) => `${group.name}: ${group.tools.map(toolWords).join(', ')}`)
  return [INTRO[kind], ...lines].join('\n')
}

/** The tool groups a block's text names (the inverse of toolsText). */
export function parseToolsText(text: string): ToolGroup[] {
  const groups: ToolGroup[] = []
  for (const line of text.split('\n').slice(1)) {
    const at = line.indexOf(': ')
    if (at <= 0) continue
    const tools = [...line.slice(at + 2).matchAll(/([A-Za-z0-9_.-]+) \(([^)]*)\)/g)].map((m) => {
      const words = (m[2] ?? '').split(', ')
      return {
        name: m[1] ?? '',
        readOnly: words.includes('read-only'),
        destructive: words.includes('may delete or overwrite'),
        openWorld: words.includes('reaches outside'),
        anyone: !words.includes("asks its person first for others' goals"),
      }
    })
    if (tools.length > 0) groups.push({ name: line.slice(0, at), tools })
  }
  return groups
}

/** What the room's executors offer (issue 43): absent in the task means unknown, and nothing is said. */
export function roomCapabilitiesOf(task: LlmTask): readonly Capability[] | undefined {
  return task.kind === 'decompose' || task.kind === 'score' ? task.roomCapabilities : undefined
}

const CAPABILITY_WORDS: Record<Capability, string> = {
  can_write_text: 'can_write_text (write text)',
  can_run_code: 'can_run_code (write and run code)',
  can_query_api: 'can_query_api (look up live data)',
}

/** The <room> and <tools> blocks of a decompose or score prompt ('' when the task says nothing of them). */
export function roomBlocks(t: Tags, task: LlmTask): string {
  let out = ''
  const caps = roomCapabilitiesOf(task)
  if (caps !== undefined) {
    const can = caps.length ? caps.map((c) => CAPABILITY_WORDS[c]).join(', ') : 'nothing yet'
    out += `\n${t(
      'room',
      `Executors present in the room can: ${can}. Prefer subgoals they can do; a subgoal needing something nobody offers will wait.`,
    )}`
  }
  if (task.kind === 'decompose' || task.kind === 'score') {
    const text = toolsText(task.kind, roomToolsOf(task))
    if (text !== null) out += `\n${t('tools', text)}`
  }
  return out
}

/** The task's room fields from a prompt's <room> and <tools> bodies (the inverse of roomBlocks). */
export function parseRoom(
  room: string | undefined,
  tools: string | undefined,
): { roomCapabilities?: Capability[]; roomTools?: ToolGroup[] } {
  const roomTools = tools === undefined ? [] : parseToolsText(tools)
  const withTools = roomTools.length > 0 ? { roomTools } : {}
  if (room === undefined) return withTools
  const can = /can: (.*?)\. Prefer/.exec(room)?.[1] ?? ''
  const named = [...can.matchAll(/\b(can_[a-z_]+) \(/g)].map((m) => m[1] as Capability)
  return { roomCapabilities: named.filter((c) => CAPABILITIES.includes(c)), ...withTools }
}
