/**
 * What an executor did on its way to a result (issue 24): each code run,
 * each web search and (since version 8, issue 57) each call of a tool its
 * person brought, carried in the result record so every peer sees it. A
 * step is the executor's signed word: no peer re-runs code it received, and
 * every field renders as text.
 *
 * This module owns the step contract: the sandbox (src/sandbox) produces
 * CodeRun values, the LLM layer turns tool calls into Steps, the executor
 * clips them to these limits and publishes them.
 */
import { z } from './zod'
import { toolGroupNameSchema, toolNameSchema } from './tool-groups'

/** Tool-loop steps kept in one result: the step limit of the loop, with room for a final search. */
export const MAX_STEPS = 8
/** One program as the model wrote it: a page of code is plenty for a computation. */
export const MAX_STEP_CODE = 4_000
/** What a program printed, as kept in the record (the model may have seen more). */
export const MAX_STEP_STDOUT = 2_000
export const MAX_STEP_STDERR = 1_000
/** An error message (exception, timeout, memory) as kept in the record. */
export const MAX_STEP_ERROR = 500
/** Longest a code run may be said to take: the sandbox's limit is far below it. */
export const MAX_STEP_DURATION_MS = 600_000
export const MAX_SEARCH_QUERY = 400
/** Sources per search: a provider's page of results. */
export const MAX_SOURCES = 10
export const MAX_SOURCE_TITLE = 300
export const MAX_SOURCE_URL = 2_000
/** A tool call's arguments as kept in the record: their JSON, cut (the model's call had them whole). */
export const MAX_STEP_TOOL_INPUT = 2_000
/**
 * What a tool answered, as kept in the record: its text, cut. Enough for a
 * file's page or a few records; the model saw up to MAX_TOOL_OUTPUT_TO_MODEL.
 */
export const MAX_STEP_TOOL_OUTPUT = 4_000
/** Longest a tool call may be said to take: an approval may wait minutes. */
export const MAX_STEP_TOOL_DURATION_MS = 3_600_000

export const CODE_LANGUAGES = ['javascript'] as const
export type CodeLanguage = (typeof CODE_LANGUAGES)[number]

/** One run of model-written code in the executor's own sandbox. */
export interface CodeStep {
  type: 'code'
  language: CodeLanguage
  code: string
  stdout: string
  stderr: string
  /** 0 when the program ended normally; 1 when it threw or was stopped */
  exit: number
  /** why it ended badly (exception, time limit, memory limit); empty when exit is 0 */
  error: string
  durationMs: number
  /** true when the time limit stopped it */
  timedOut: boolean
}

export interface Source {
  title: string
  /** an absolute http: or https: URL */
  url: string
}

/** One web search the provider ran for the model (server-side). */
export interface SearchStep {
  type: 'search'
  query: string
  sources: Source[]
}

/**
 * The executor had no live source and answered from the model's knowledge,
 * because its person opted in to that: the result says it was not checked.
 */
export interface KnowledgeStep {
  type: 'knowledge'
}

/**
 * One call of a tool its executor's person brought (an MCP server, since
 * protocol version 8): which group and tool, the arguments, and what came
 * back. `status`: 'ok' it answered, 'error' it answered with an error (or
 * could not be reached), 'refused' its person's consent did not allow it, so
 * it never ran.
 */
export interface ToolStep {
  type: 'tool'
  group: string
  name: string
  /** the arguments as JSON text, cut */
  input: string
  /** the answer's text (an error's message; why it was refused), cut */
  output: string
  status: 'ok' | 'error' | 'refused'
  durationMs: number
}

export type Step = CodeStep | SearchStep | KnowledgeStep | ToolStep

const httpUrl = z
  .string()
  .min(1)
  .max(MAX_SOURCE_URL)
  .refine((value) => /^https?:\/\/[^\s]+$/i.test(value), 'not an http(s) URL')

export const sourceSchema = z.strictObject({
  title: z.string().max(MAX_SOURCE_TITLE),
  url: httpUrl,
})

export const codeStepSchema = z.strictObject({
  type: z.literal('code'),
  language: z.enum(CODE_LANGUAGES),
  code: z.string().min(1).max(MAX_STEP_CODE),
  stdout: z.string().max(MAX_STEP_STDOUT),
  stderr: z.string().max(MAX_STEP_STDERR),
  exit: z.number().int().min(0).max(255),
  error: z.string().max(MAX_STEP_ERROR),
  durationMs: z.number().int().min(0).max(MAX_STEP_DURATION_MS),
  timedOut: z.boolean(),
})

export const searchStepSchema = z.strictObject({
  type: z.literal('search'),
  query: z.string().min(1).max(MAX_SEARCH_QUERY),
  sources: z.array(sourceSchema).max(MAX_SOURCES),
})

export const knowledgeStepSchema = z.strictObject({ type: z.literal('knowledge') })

export const toolStepSchema = z.strictObject({
  type: z.literal('tool'),
  group: toolGroupNameSchema,
  name: toolNameSchema,
  input: z.string().max(MAX_STEP_TOOL_INPUT),
  output: z.string().max(MAX_STEP_TOOL_OUTPUT),
  status: z.enum(['ok', 'error', 'refused']),
  durationMs: z.number().int().min(0).max(MAX_STEP_TOOL_DURATION_MS),
})

export const stepSchema = z.discriminatedUnion('type', [
  codeStepSchema,
  searchStepSchema,
  knowledgeStepSchema,
  toolStepSchema,
])

/** A result's steps: absent when the executor used no tool; never an empty list. */
export const stepsSchema = z.array(stepSchema).min(1).max(MAX_STEPS)
