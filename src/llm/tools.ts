/**
 * The execute task's tools (issue 24), as the LLM layer offers them: what a
 * caller lends a call (a sandbox, permission to search, a budget check),
 * the function tool `run_javascript`, and how what ran becomes Steps
 * (src/protocol/steps.ts) cut to the protocol's limits.
 *
 * Only the executor that asked the model runs the code, in its own sandbox;
 * the steps it reports are data that every other peer only shows as text.
 */
import { jsonSchema, tool, type Tool } from 'ai'
import {
  MAX_SEARCH_QUERY,
  MAX_SOURCE_TITLE,
  MAX_SOURCE_URL,
  MAX_SOURCES,
  MAX_STEP_CODE,
  MAX_STEP_DURATION_MS,
  MAX_STEP_ERROR,
  MAX_STEP_STDERR,
  MAX_STEP_STDOUT,
  sourceSchema,
  type CodeStep,
  type SearchStep,
  type Source,
  type Step,
} from '../protocol/steps'
import type { CodeRun, CodeSandbox } from '../sandbox/types'
import { toolboxInstructions, type Toolbox } from './toolbox'

/**
 * Model calls in one tool loop: room for a run, a fix and a rerun, a search
 * or two, and the answer. The last one is asked for the answer with tools
 * off, so the loop always ends with a deliverable. Below MAX_STEPS (the
 * protocol's steps per result), so every step fits in the record.
 */
export const MAX_TOOL_STEPS = 6
/** Web searches the provider may run in one call (Anthropic max_uses): each is priced. */
export const MAX_WEB_SEARCHES = 3
/** What the model sees of a program's output: more than the record keeps, still cheap in tokens. */
export const MAX_TOOL_OUTPUT_TO_MODEL = 8_000

export const RUN_JAVASCRIPT = 'run_javascript'
export const WEB_SEARCH = 'web_search'

/** What the current model does with tools; both false once it rejected them. */
export interface ToolSupport {
  /** calls function tools (run_javascript); the offline model counts */
  code: boolean
  /** has a server-side web search (Anthropic, OpenAI) */
  search: boolean
}

export const NO_TOOL_SUPPORT: ToolSupport = { code: false, search: false }

/** What one call has spent so far, for the budget check between steps. */
export interface LoopSpend {
  inputTokens: number
  outputTokens: number
  webSearches: number
}

/** What a caller lends one execute call. Absent fields: that tool is not offered. */
export interface TaskTools {
  /** run_javascript: the caller's sandbox, created on the first run (lazily) */
  sandbox?: () => CodeSandbox | Promise<CodeSandbox>
  /** the provider's own web search (only Anthropic and OpenAI have one) */
  search?: boolean
  /** no live source: answer from the model's knowledge and say so (a KnowledgeStep) */
  knowledge?: boolean
  /** asked before each further model call: why to stop now (a cap reached), or null */
  budget?: (spent: LoopSpend) => string | null
  /**
   * the tools of the group a leaf needs (issue 57), by the leaf's group name;
   * undefined when this executor does not (or no longer) offer it
   */
  toolbox?: (group: string) => Toolbox | undefined
}

/** The tools a provider is asked to use for one request (the LLM layer's own view). */
export interface ToolRequest {
  sandbox?: () => CodeSandbox | Promise<CodeSandbox>
  search: boolean
  budget?: (spent: LoopSpend) => string | null
  /** the person's own tools for this leaf (an MCP server), consent checked at each call */
  toolbox?: Toolbox
}

/** Added to the execute system prompt when tools are offered. */
export function toolInstructions(request: ToolRequest): string {
  const lines = [
    '',
    'TOOLS: for this task you have tools (this replaces "You cannot browse or run code").',
  ]
  if (request.sandbox) {
    lines.push(
      `- ${RUN_JAVASCRIPT} runs a JavaScript program in a sandbox (no network, no files, a few`,
      '  seconds). Print every result with console.log. You see stdout, stderr, the exit code',
      '  and any error; fix the program and run it again if needed. Quote the real output.',
    )
  }
  if (request.search) {
    lines.push(`- ${WEB_SEARCH} searches the web; cite the pages you used (title and URL).`)
  }
  if (request.toolbox) lines.push(...toolboxInstructions(request.toolbox))
  lines.push(
    'When done, reply with one JSON object {"output": "<the Markdown deliverable>"} and nothing else.',
  )
  return lines.join('\n')
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** A sandbox run as a record's step: every field cut to the protocol's limits. */
export function codeStep(run: CodeRun): CodeStep {
  return {
    type: 'code',
    language: run.language,
    code: cut(run.code, MAX_STEP_CODE),
    stdout: cut(run.stdout, MAX_STEP_STDOUT),
    stderr: cut(run.stderr, MAX_STEP_STDERR),
    exit: Math.min(255, Math.max(0, Math.trunc(run.exit))),
    error: run.exit === 0 ? '' : cut(run.error, MAX_STEP_ERROR),
    durationMs: Math.min(MAX_STEP_DURATION_MS, Math.max(0, Math.round(run.durationMs))),
    timedOut: run.timedOut,
  }
}

/** What the model gets back from a run: the outcome, output cut to a size worth its tokens. */
function forModel(run: CodeRun): Record<string, unknown> {
  return {
    exit: run.exit,
    stdout: cut(run.stdout, MAX_TOOL_OUTPUT_TO_MODEL),
    stderr: cut(run.stderr, MAX_TOOL_OUTPUT_TO_MODEL),
    ...(run.error ? { error: run.error } : {}),
    ...(run.timedOut ? { timedOut: true } : {}),
  }
}

/**
 * run_javascript: runs the model's program in the caller's sandbox and
 * records the run as a step (in `steps`, in the order they ran).
 */
export function runJavascriptTool(
  sandbox: () => CodeSandbox | Promise<CodeSandbox>,
  steps: Step[],
): Tool {
  let box: Promise<CodeSandbox> | null = null
  return tool({
    description:
      'Run a JavaScript program (ES2023, no network, no files, no imports) and get its output. ' +
      'Print results with console.log: only what the program prints comes back.',
    inputSchema: jsonSchema<{ code: string }>({
      type: 'object',
      properties: { code: { type: 'string', description: 'the whole program' } },
      required: ['code'],
      additionalProperties: false,
    }),
    execute: async ({ code }: { code: string }, { abortSignal }) => {
      if (typeof code !== 'string' || code.trim() === '') {
        return { exit: 1, stdout: '', stderr: '', error: 'no code given' }
      }
      box ??= Promise.resolve(sandbox())
      const run = await (await box).run({ language: 'javascript', code }, abortSignal)
      steps.push(codeStep(run))
      return forModel(run)
    },
  })
}

/** A source as the record keeps it, or null when its URL is not http(s). */
export function toSource(url: unknown, title: unknown): Source | null {
  if (typeof url !== 'string') return null
  const source = {
    title: cut(typeof title === 'string' ? title.trim() : '', MAX_SOURCE_TITLE),
    url: url.trim(),
  }
  if (source.url.length > MAX_SOURCE_URL) return null
  return sourceSchema.safeParse(source).success ? source : null
}

/** One search as a step: its query and its distinct sources, cut to the limits. */
export function searchStep(query: string, sources: Iterable<Source>): SearchStep | null {
  const q = cut(query.trim() || 'web search', MAX_SEARCH_QUERY)
  const seen = new Set<string>()
  const kept: Source[] = []
  for (const source of sources) {
    if (seen.has(source.url) || kept.length >= MAX_SOURCES) continue
    seen.add(source.url)
    kept.push(source)
  }
  return { type: 'search', query: q, sources: kept }
}
