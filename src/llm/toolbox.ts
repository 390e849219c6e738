/**
 * A toolbox (issue 57): the tools of one group its executor's person brought
 * (an MCP server), lent to one execute call, and how the tool loop offers
 * them to the model. The runtime makes it (src/runtime/mcp/): its `call`
 * checks the person's consent at every call, in code, and only then reaches
 * the server. Here each call becomes a step of the result (cut to the
 * protocol's limits) and a line of the call inspector (the model's view,
 * cut less).
 *
 * Whatever the model asks for, it can only call a tool of this group by
 * name, with arguments; who the goal is for, and what its person allows, is
 * not the model's to say.
 */
import { jsonSchema, tool, type Tool } from 'ai'
import {
  MAX_STEP_TOOL_DURATION_MS,
  MAX_STEP_TOOL_INPUT,
  MAX_STEP_TOOL_OUTPUT,
  type Step,
  type ToolStep,
} from '../protocol/steps'

/** One tool of a toolbox, as its server lists it. */
export interface ToolboxTool {
  name: string
  /** the server's description (its person's own server: given to their model as is, never announced) */
  description: string
  /** JSON Schema of its arguments, as the server gave it */
  inputSchema: Record<string, unknown>
}

/** What came of one call. */
export interface ToolCallOutcome {
  /** 'ok' it answered; 'error' it answered with an error, or failed; 'refused' consent did not allow it */
  status: 'ok' | 'error' | 'refused'
  /** what the model reads: the answer's text, the error, or why it was refused */
  text: string
}

export interface Toolbox {
  /** the group's name, as the room knows it */
  group: string
  tools: ToolboxTool[]
  /** calls `name` with `input` if its person's consent allows it now; never throws */
  call(name: string, input: unknown, signal?: AbortSignal): Promise<ToolCallOutcome>
}

/** One call as the call inspector shows it: the model's view of it, less cut than the step. */
export interface ToolCallReport {
  group: string
  tool: string
  /** the arguments as JSON */
  input: string
  /** what came back to the model */
  output: string
  status: ToolCallOutcome['status']
  startedAt: number
  durationMs: number
}

/**
 * What the model reads of a tool's answer: enough for a file or a page of
 * records, bounded in tokens (a model may ask for a whole folder).
 */
export const MAX_TOOL_RESULT_TO_MODEL = 8_000
/** The server's description of a tool, as the model gets it. */
export const MAX_TOOL_DESCRIPTION = 1_000
/**
 * Tool calls one execute call may make: a few lookups and a write each
 * model turn. Past it a call is refused: a loop that keeps calling (a model
 * talked into crawling a disk) stops spending.
 */
export const MAX_TOOL_CALLS_PER_TASK = 12

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** The arguments as JSON text (a model's odd value shown as it is). */
export function inputText(input: unknown): string {
  try {
    return JSON.stringify(input ?? {}) ?? String(input)
  } catch {
    return String(input)
  }
}

/** A call as a record's step: every field cut to the protocol's limits. */
export function toolStep(group: string, report: ToolCallReport): ToolStep {
  return {
    type: 'tool',
    group,
    name: report.tool,
    input: cut(report.input, MAX_STEP_TOOL_INPUT),
    output: cut(report.output, MAX_STEP_TOOL_OUTPUT),
    status: report.status,
    durationMs: Math.min(MAX_STEP_TOOL_DURATION_MS, Math.max(0, Math.round(report.durationMs))),
  }
}

/** A schema the providers take: an object, whatever the server gave. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties ?? {}
  return { ...schema, type: 'object', properties }
}

/**
 * The toolbox's tools for the AI SDK: each call goes through `box.call` (the
 * consent gate), and is recorded in `steps` and `calls`, in order.
 */
export function toolboxTools(
  box: Toolbox,
  steps: Step[],
  calls: ToolCallReport[],
  now: () => number = Date.now,
): Record<string, Tool> {
  let made = 0
  const tools: Record<string, Tool> = {}
  for (const spec of box.tools) {
    tools[spec.name] = tool({
      description: cut(spec.description || `${spec.name} (${box.group})`, MAX_TOOL_DESCRIPTION),
      inputSchema: jsonSchema(objectSchema(spec.inputSchema)),
      execute: async (input: unknown, { abortSignal }) => {
        const startedAt = now()
        made++
        const outcome: ToolCallOutcome =
          made > MAX_TOOL_CALLS_PER_TASK
            ? {
                status: 'refused',
                text: `refused: this task already made ${MAX_TOOL_CALLS_PER_TASK} tool calls, the most one task may`,
              }
            : await box.call(spec.name, input, abortSignal)
        const report: ToolCallReport = {
          group: box.group,
          tool: spec.name,
          input: cut(inputText(input), MAX_TOOL_RESULT_TO_MODEL),
          output: cut(outcome.text, MAX_TOOL_RESULT_TO_MODEL),
          status: outcome.status,
          startedAt,
          durationMs: now() - startedAt,
        }
        calls.push(report)
        steps.push(toolStep(box.group, report))
        return outcome.status === 'ok'
          ? report.output
          : { error: report.output, ...(outcome.status === 'refused' ? { refused: true } : {}) }
      },
    })
  }
  return tools
}

/** Added to the execute system prompt when a toolbox is lent. */
export function toolboxInstructions(box: Toolbox): string[] {
  return [
    `- the tools of "${box.group}" (${box.tools.map((t) => t.name).join(', ')}): its person's own`,
    '  server. Call what the task needs, then quote what they returned; a refused or failed call',
    '  is not to be retried under another name: say what could not be done.',
  ]
}
