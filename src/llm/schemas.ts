/**
 * zod schemas for what each task kind must yield (LlmOutputs), and the JSON
 * Schema we hand to providers.
 *
 * Two views of one schema, on purpose:
 * - the zod schema is the judge: every reply is validated locally with it,
 *   including the limits and the rule that dependsOn points only to EARLIER
 *   siblings, which no JSON Schema can express;
 * - the wire schema (wireJsonSchema) is a hint for the model: structure,
 *   types, enums and descriptions only. Size keywords (maxLength, minItems,
 *   minimum, ...) are stripped because OpenAI strict mode and Anthropic
 *   structured outputs reject some of them with a 400, and local servers
 *   support them unevenly. The limits are written into the descriptions
 *   instead, and enforced here.
 *
 * Limits are the protocol's own (src/protocol/limits.ts), so anything we
 * accept can be published as a record. A reply a little over one is
 * trimmed first (output-trim.ts), then judged like any other.
 */
import { z } from '../protocol/zod'
import {
  MAX_NOTES,
  MAX_OUTPUT,
  MAX_RATIONALE,
  MAX_SUBGOAL_TEXT,
  MAX_SUBGOALS,
  MIN_SUBGOALS,
} from '../protocol/limits'
import { trimToLimits } from './output-trim'
import { toolGroupNameSchema } from '../protocol/tool-groups'
import {
  CAPABILITIES,
  type Capability,
  type LlmOutputs,
  type LlmTask,
  type LlmTaskKind,
} from './types'

const capabilitySchema = z.enum(CAPABILITIES as [Capability, ...Capability[]])

const subgoalSchema = z.object({
  text: z
    .string()
    .trim()
    .min(1, 'subgoal text is empty')
    .max(MAX_SUBGOAL_TEXT)
    .describe(`one imperative sentence, at most ${MAX_SUBGOAL_TEXT} characters`),
  dependsOn: z
    .array(z.number().int().min(0))
    .describe('0-based indices of EARLIER subgoals whose results this one needs; [] if none'),
})

export const decomposeOutputSchema = z
  .object({
    subgoals: z
      .array(subgoalSchema)
      .min(MIN_SUBGOALS)
      .max(MAX_SUBGOALS)
      .describe(`${MIN_SUBGOALS} to ${MAX_SUBGOALS} subgoals`),
    rationale: z
      .string()
      .trim()
      .max(MAX_RATIONALE)
      .describe(`why this split, at most ${MAX_RATIONALE} characters`),
  })
  .superRefine((value, ctx) => {
    const seenTexts = new Set<string>()
    value.subgoals.forEach((subgoal, index) => {
      const seen = new Set<number>()
      for (const dep of subgoal.dependsOn) {
        // Only earlier siblings: the dependency graph is then acyclic by construction.
        if (dep >= index) {
          ctx.addIssue({
            code: 'custom',
            path: ['subgoals', index, 'dependsOn'],
            message:
              dep === index
                ? `subgoal ${index} depends on itself`
                : `subgoal ${index} depends on ${dep}, a later subgoal; only earlier indices are allowed`,
          })
        }
        if (seen.has(dep)) {
          ctx.addIssue({
            code: 'custom',
            path: ['subgoals', index, 'dependsOn'],
            message: `subgoal ${index} lists ${dep} twice`,
          })
        }
        seen.add(dep)
      }
      // Node ids hash the text: two identical siblings would collide.
      const key = subgoal.text.toLowerCase()
      if (seenTexts.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['subgoals', index, 'text'],
          message: `subgoal ${index} repeats an earlier subgoal`,
        })
      }
      seenTexts.add(key)
    })
  })

/** A scorer's judgement of one subgoal (the accepted split is classified by its voters'). */
const judgementSchema = z.object({
  atomic: z.boolean().describe('true if this subgoal is one concrete deliverable'),
  capability: capabilitySchema.describe('what producing the deliverable needs'),
  /** issue 57: a tool group of the room's (<tools>) it needs; a null or empty one is dropped first */
  tool: toolGroupNameSchema.optional(),
})

/**
 * The judgement the wire schema asks for in a room with tool groups: `tool`
 * is always present, a group or null (OpenAI's strict structured output
 * wants every field required). Without tool groups the field is not asked for.
 */
const wireToolJudgementSchema = judgementSchema.extend({
  tool: z
    .string()
    .nullable()
    .describe('the group of <tools> whose tools producing it needs, or null for none'),
})

export const scoreOutputSchema = z.object({
  score: z.number().min(0).max(1).describe('0 to 1'),
  notes: z
    .string()
    .trim()
    .max(MAX_NOTES)
    .describe(`main strengths and weaknesses, at most ${MAX_NOTES} characters`),
  judgements: z
    .array(judgementSchema)
    .min(MIN_SUBGOALS)
    .max(MAX_SUBGOALS)
    .describe('one per subgoal, in the order given'),
})

const markdownOutput = z
  .string()
  .trim()
  .min(1, 'output is empty')
  .max(MAX_OUTPUT)
  .describe(`Markdown, at most ${MAX_OUTPUT} characters`)

export const executeOutputSchema = z.object({ output: markdownOutput })
export const rollupOutputSchema = z.object({ output: markdownOutput })

/** The judge for each task kind. */
export const OUTPUT_SCHEMAS: { [K in LlmTaskKind]: z.ZodType<LlmOutputs[K]> } = {
  decompose: decomposeOutputSchema,
  score: scoreOutputSchema,
  execute: executeOutputSchema,
  rollup: rollupOutputSchema,
}

/** Names providers see (OpenAI json_schema.name); also a second way the mock recognises a task. */
export const SCHEMA_NAMES: { [K in LlmTaskKind]: string } = {
  decompose: 'decomposition',
  score: 'score',
  execute: 'deliverable',
  rollup: 'document',
}

/** Keywords that constrain sizes or ranges; see the header for why they are stripped. */
const STRIPPED_KEYWORDS = new Set([
  '$schema',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
  'format',
])

function stripConstraints(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripConstraints)
  if (node === null || typeof node !== 'object') return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (STRIPPED_KEYWORDS.has(key)) continue
    // Inside "properties" the keys are field names, never keywords: keep them all.
    out[key] =
      key === 'properties' && value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripConstraints(v)]))
        : stripConstraints(value)
  }
  return out
}

const wireCache = new Map<string, Record<string, unknown>>()

/** A score in a room with tool groups: each judgement names one, or null. */
const scoreWithToolsSchema = scoreOutputSchema.extend({
  judgements: z
    .array(wireToolJudgementSchema)
    .min(MIN_SUBGOALS)
    .max(MAX_SUBGOALS)
    .describe('one per subgoal, in the order given'),
})

/**
 * The JSON Schema sent to providers for a task kind (structure only, see the
 * header); a score in a room whose executors announce tool groups asks for
 * each judgement's `tool` too.
 */
export function wireJsonSchema(kind: LlmTaskKind, task?: LlmTask): Record<string, unknown> {
  const tools = task?.kind === 'score' && (task.roomTools?.length ?? 0) > 0
  const key = tools ? `${kind}+tools` : kind
  let cached = wireCache.get(key)
  if (!cached) {
    const full = z.toJSONSchema(tools ? scoreWithToolsSchema : OUTPUT_SCHEMAS[kind], {
      target: 'draft-7',
    })
    cached = stripConstraints(full) as Record<string, unknown>
    wireCache.set(key, cached)
  }
  return cached
}

/**
 * Forgiving clean-up before validation, for slips local models make often
 * and that have one obvious meaning: snake_case keys, a missing dependsOn
 * (= none), a numeric score sent as a string, repeated dependency indices,
 * `judgments` for `judgements`.
 * Anything ambiguous is left for the schema to reject and the model to fix.
 */
export function normalizeOutput(kind: LlmTaskKind, raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw
  const obj = { ...(raw as Record<string, unknown>) }
  if (kind === 'decompose' && Array.isArray(obj.subgoals)) {
    obj.subgoals = obj.subgoals.map((item: unknown) => {
      if (typeof item === 'string') return { text: item, dependsOn: [] }
      if (item === null || typeof item !== 'object') return item
      const sub = { ...(item as Record<string, unknown>) }
      if (sub.dependsOn === undefined) sub.dependsOn = sub.depends_on ?? []
      delete sub.depends_on
      if (Array.isArray(sub.dependsOn)) sub.dependsOn = [...new Set(sub.dependsOn)]
      return sub
    })
  }
  // the American spelling, which models use as often as ours
  if (kind === 'score' && obj.judgements === undefined && obj.judgments !== undefined) {
    obj.judgements = obj.judgments
    delete obj.judgments
  }
  // a judgement without a tool group says so with null or "": the same as none
  if (kind === 'score' && Array.isArray(obj.judgements)) {
    obj.judgements = obj.judgements.map((item: unknown) => {
      if (item === null || typeof item !== 'object') return item
      const judgement = { ...(item as Record<string, unknown>) }
      const tool = judgement.tool
      if (tool === null || (typeof tool === 'string' && tool.trim() === '')) delete judgement.tool
      return judgement
    })
  }
  if (kind === 'score' && typeof obj.score === 'string' && obj.score.trim() !== '') {
    const n = Number(obj.score)
    if (Number.isFinite(n)) obj.score = n
  }
  return obj
}

export type ValidationResult<K extends LlmTaskKind> =
  { ok: true; value: LlmOutputs[K]; notes?: string[] } | { ok: false; error: string }

/** How many schema issues to quote back to the model: enough to fix, short enough to be cheap. */
const MAX_ISSUES_REPORTED = 5

/**
 * What a reply must also fit that its kind's schema cannot say: a score
 * judges each subgoal of the split it scores, one judgement each, in order
 * (a record with another count is no vote: docs/PROTOCOL.md §5.1). Null
 * when it fits (or nothing is known of the task).
 */
export function taskMismatch(task: LlmTask | undefined, value: unknown): string | null {
  if (task?.kind !== 'score') return null
  const { judgements } = value as LlmOutputs['score']
  const wanted = task.subgoals.length
  if (judgements.length !== wanted)
    return `judgements: ${judgements.length} given for ${wanted} subgoals; give exactly one per subgoal, in order`
  // a tool group nobody announces would leave its leaf waiting for good (issue 57)
  const groups = new Set((task.roomTools ?? []).map((group) => group.name))
  const stray = judgements.findIndex((j) => j.tool !== undefined && !groups.has(j.tool))
  if (stray < 0) return null
  const named = groups.size > 0 ? `name one of ${[...groups].join(', ')}, or null` : 'leave it out'
  return `judgements.${stray}.tool: "${judgements[stray]!.tool}" is not a tool group of <tools>; ${named}`
}

/**
 * Validate a parsed reply, after the clean-up above and the trims of
 * output-trim.ts (notes say what was trimmed), against its kind's schema and
 * (when given) its task; on failure, a compact message meant to be fed back
 * to the model.
 */
export function validateOutput<K extends LlmTaskKind>(
  kind: K,
  raw: unknown,
  task?: LlmTask,
): ValidationResult<K> {
  const { value, notes } = trimToLimits(kind, normalizeOutput(kind, raw))
  const result = OUTPUT_SCHEMAS[kind].safeParse(value)
  const mismatch = result.success ? taskMismatch(task, result.data) : null
  if (mismatch !== null) return { ok: false, error: `schema violation: ${mismatch}` }
  if (result.success)
    return { ok: true, value: result.data as LlmOutputs[K], ...(notes.length > 0 ? { notes } : {}) }
  const issues = result.error.issues.slice(0, MAX_ISSUES_REPORTED).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : '(root)'
    return `${where}: ${issue.message}`
  })
  return { ok: false, error: `schema violation: ${issues.join('; ')}` }
}
