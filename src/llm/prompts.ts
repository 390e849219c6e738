/**
 * System and user prompts for each task kind, and their inverse.
 *
 * Format, and why:
 * - The system prompt's first line is a marker, `task: <kind>`. It costs
 *   three tokens and lets the mock LLM server (test/mock-llm) recognise the
 *   task whatever wire format carried it.
 * - The user prompt holds the task's data in XML-like tags (<path>, <goal>,
 *   <subgoal index="0" depends_on="">...). Models follow tagged data well,
 *   and with <, > and & escaped the encoding is exact, so parsePrompt()
 *   recovers the very LlmTask that buildPrompts() was given. The mock uses
 *   that to answer with the offline model; a round-trip test keeps it honest.
 * - Prompts are short on purpose: every token is paid for, by every peer.
 */
import {
  CAPABILITIES,
  type Capability,
  type GoalPath,
  type LlmTask,
  type LlmTaskKind,
  type RedoGuidance,
  type SubgoalDraft,
  type VetoedSplit,
} from './types'
import {
  MAX_NOTES,
  MAX_RATIONALE,
  MAX_REASON,
  MAX_SUBGOAL_TEXT,
  MAX_SUBGOALS,
  MIN_SUBGOALS,
} from '../protocol/limits'

export interface Prompts {
  system: string
  prompt: string
}

const TASK_KINDS: readonly LlmTaskKind[] = ['decompose', 'score', 'classify', 'execute', 'rollup']

const PREAMBLE =
  'You are one agent in a swarm that turns a goal into a tree of concrete, executed tasks. ' +
  'Reply with JSON only.'

const SYSTEM: { [K in LlmTaskKind]: string } = {
  decompose: [
    `Split the last goal of <path> into ${MIN_SUBGOALS} to ${MAX_SUBGOALS} subgoals (3 to 5 is usual).`,
    'Together they must cover the whole goal; they must not overlap; each must be actionable,',
    'or a clearly smaller goal that can be split again. Each is one imperative sentence, specific',
    `to this goal, at most ${MAX_SUBGOAL_TEXT} characters. dependsOn: 0-based indices of EARLIER`,
    'subgoals whose results it needs ([] if none); fill it wherever order matters.',
    'The closer depth is to max_depth, the more concrete the subgoals must be.',
    `rationale: why this split, at most ${MAX_RATIONALE} characters.`,
    "If <vetoed> is given, the goal's author rejected those splits: do not propose them again,",
    'and follow their notes.',
  ].join('\n'),
  score: [
    'Score the proposed split of the last goal of <path> from 0 to 1 with this rubric:',
    '1. coverage: together the subgoals cover the whole goal;',
    '2. no overlap: no two subgoals do the same work;',
    '3. actionability: each subgoal is actionable, or clearly still too coarse and splittable.',
    '0.9 or more excellent, 0.6 acceptable, under 0.4 poor. Weigh the three equally.',
    `notes: the main weakness first, at most ${MAX_NOTES} characters.`,
  ].join('\n'),
  classify: [
    'Classify <subgoal>, a part of the last goal of <path>.',
    'atomic = true when it is ONE concrete deliverable one agent can produce in one reply',
    '(a document, a list, a table, a code file); false when it still needs splitting.',
    'capability = what producing the deliverable needs:',
    '- can_run_code: the deliverable is code, or needs a computation (an executor may run JavaScript);',
    '- can_query_api: it needs live data from some API or web search (prices, availability, news);',
    '- can_write_text: prose, plans, lists from general knowledge.',
    "depth is the subgoal's depth (root goal = 0); at max_depth it is atomic anyway.",
    `reason: at most ${MAX_REASON} characters.`,
  ].join('\n'),
  execute: [
    'Produce the deliverable for <task>, a leaf of the goal tree in <path> (root first).',
    'Write the actual content in Markdown (steps, lists, tables, code), not a description of it.',
    'Use the results in <dependencies>. You cannot browse or run code: where live data is',
    'needed give your best knowledge and mark what to verify. No preamble, no "as an AI".',
    'output: the Markdown deliverable.',
    'If <redo> is given, the author sent back <previous_output>: redo it following <note>.',
  ].join('\n'),
  rollup: [
    'Combine the <parts> (results of the subgoals of the last goal of <path>, in order) into',
    'one readable Markdown document for that goal: a title, a short overview, then one section',
    'per part in order with its concrete content kept (merge repeats, drop filler).',
    'If <path> has one goal this is the final plan: headings, ordered steps, no "as an AI",',
    'no mention of agents or of this process.',
    'output: the Markdown document.',
  ].join('\n'),
}

export function systemPrompt(kind: LlmTaskKind): string {
  return `task: ${kind}\n${PREAMBLE}\n${SYSTEM[kind]}`
}

// --- encoding -------------------------------------------------------------

export function escapeText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}

export function unescapeText(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&')
}

const tag = (name: string, body: string, attrs = ''): string => `<${name}${attrs}>${body}</${name}>`

function pathBlock(path: GoalPath): string {
  return `<path>\n${path.map((goal) => tag('goal', escapeText(goal))).join('\n')}\n</path>`
}

function depthBlock(depth: number, maxDepth: number): string {
  return `${tag('depth', String(depth))}\n${tag('max_depth', String(maxDepth))}`
}

function itemsBlock(
  name: string,
  item: string,
  entries: { text: string; output: string }[],
): string {
  const body = entries
    .map((e) =>
      tag(item, `\n${tag('text', escapeText(e.text))}\n${tag('output', escapeText(e.output))}\n`),
    )
    .join('\n')
  return `<${name}>\n${body}\n</${name}>`
}

/** The author's vetoed splits of the goal (issue 27): absent when none. */
function vetoedBlock(vetoed: VetoedSplit[] | undefined): string {
  if (!vetoed?.length) return ''
  const splits = vetoed
    .map((split) => {
      const subs = split.subgoals.map((text) => tag('subgoal', escapeText(text))).join('\n')
      return tag('split', `\n${tag('note', escapeText(split.note))}\n${subs}\n`)
    })
    .join('\n')
  return `\n<vetoed>\n${splits}\n</vetoed>`
}

/** The author's note on a leaf sent back (issue 27): absent when not redone. */
function redoBlock(redo: RedoGuidance | undefined): string {
  if (!redo) return ''
  const previous = tag('previous_output', escapeText(redo.previous ?? '(it failed)'))
  return `\n${tag('redo', `\n${tag('note', escapeText(redo.note))}\n${previous}\n`)}`
}

export function userPrompt(task: LlmTask): string {
  switch (task.kind) {
    case 'decompose':
      return `${pathBlock(task.path)}\n${depthBlock(task.depth, task.maxDepth)}${vetoedBlock(task.vetoed)}`
    case 'score': {
      const subs = task.subgoals
        .map((s, i) =>
          tag('subgoal', escapeText(s.text), ` index="${i}" depends_on="${s.dependsOn.join(',')}"`),
        )
        .join('\n')
      return `${pathBlock(task.path)}\n${tag('rationale', escapeText(task.rationale))}\n<subgoals>\n${subs}\n</subgoals>`
    }
    case 'classify': {
      const sibs = task.siblings.map((s) => tag('sibling', escapeText(s))).join('\n')
      return [
        pathBlock(task.path),
        tag('subgoal', escapeText(task.subgoal)),
        `<siblings>\n${sibs}\n</siblings>`,
        depthBlock(task.depth, task.maxDepth),
      ].join('\n')
    }
    case 'execute':
      return (
        [
          pathBlock(task.path),
          tag('task', escapeText(task.task), ` capability="${task.capability}"`),
          itemsBlock('dependencies', 'dependency', task.dependencies),
        ].join('\n') + redoBlock(task.redo)
      )
    case 'rollup':
      return `${pathBlock(task.path)}\n${itemsBlock('parts', 'part', task.parts)}`
  }
}

export function buildPrompts(task: LlmTask): Prompts {
  return { system: systemPrompt(task.kind), prompt: userPrompt(task) }
}

/** Appended on a retry so the model sees what was wrong with its last reply. */
export function withRetryFeedback(prompt: string, error: string): string {
  return (
    `${prompt}\n${tag('previous_reply_error', escapeText(error))}\n` +
    'Your previous reply was rejected for the reason above. Reply again with one JSON object that fixes it.'
  )
}

// --- decoding (for the mock server and tests) ------------------------------

interface Element {
  attrs: Record<string, string>
  body: string
}

/** Every <name ...>body</name> at any depth; bodies are escaped text, so no nesting confusion. */
function elements(text: string, name: string): Element[] {
  const re = new RegExp(`<${name}((?:\\s+[a-z_]+="[^"]*")*)>([\\s\\S]*?)</${name}>`, 'g')
  const out: Element[] = []
  for (const match of text.matchAll(re)) {
    const attrs: Record<string, string> = {}
    for (const a of (match[1] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g))
      attrs[a[1] ?? ''] = a[2] ?? ''
    out.push({ attrs, body: match[2] ?? '' })
  }
  return out
}

function first(text: string, name: string): string | undefined {
  return elements(text, name)[0]?.body
}

function parseIntOr(text: string | undefined, fallback: number): number {
  const n = Number.parseInt(text ?? '', 10)
  return Number.isFinite(n) ? n : fallback
}

function pairs(block: string | undefined, item: string): { text: string; output: string }[] {
  return elements(block ?? '', item).map((e) => ({
    text: unescapeText(first(e.body, 'text') ?? ''),
    output: unescapeText(first(e.body, 'output') ?? ''),
  }))
}

function redoOf(block: string | undefined): { redo?: RedoGuidance } {
  if (block === undefined) return {}
  const previous = unescapeText(first(block, 'previous_output') ?? '')
  return {
    redo: {
      note: unescapeText(first(block, 'note') ?? ''),
      previous: previous === '(it failed)' ? null : previous,
    },
  }
}

/** The task kind named by the marker line of a system prompt, if any. */
export function taskKindFromSystem(system: string): LlmTaskKind | undefined {
  const match = /^task: ([a-z]+)$/m.exec(system)
  const kind = match?.[1] as LlmTaskKind | undefined
  return kind && TASK_KINDS.includes(kind) ? kind : undefined
}

/** Rebuild the LlmTask a user prompt was made from (the inverse of userPrompt). */
export function parseUserPrompt(kind: LlmTaskKind, prompt: string): LlmTask {
  // Drop retry feedback: it is not part of the task.
  const body = prompt.replace(/<previous_reply_error>[\s\S]*$/, '')
  const path = elements(first(body, 'path') ?? '', 'goal').map((e) => unescapeText(e.body))
  const depth = parseIntOr(first(body, 'depth'), 0)
  const maxDepth = parseIntOr(first(body, 'max_depth'), 3)
  switch (kind) {
    case 'decompose': {
      const vetoed = elements(first(body, 'vetoed') ?? '', 'split').map((split) => ({
        note: unescapeText(first(split.body, 'note') ?? ''),
        subgoals: elements(split.body, 'subgoal').map((e) => unescapeText(e.body)),
      }))
      return { kind, path, depth, maxDepth, ...(vetoed.length ? { vetoed } : {}) }
    }
    case 'score': {
      const subgoals: SubgoalDraft[] = elements(first(body, 'subgoals') ?? '', 'subgoal').map(
        (e) => ({
          text: unescapeText(e.body),
          dependsOn: (e.attrs.depends_on ?? '')
            .split(',')
            .filter((s) => s !== '')
            .map((s) => Number.parseInt(s, 10)),
        }),
      )
      return { kind, path, subgoals, rationale: unescapeText(first(body, 'rationale') ?? '') }
    }
    case 'classify': {
      const siblings = elements(first(body, 'siblings') ?? '', 'sibling').map((e) =>
        unescapeText(e.body),
      )
      return {
        kind,
        path,
        subgoal: unescapeText(first(body, 'subgoal') ?? ''),
        siblings,
        depth,
        maxDepth,
      }
    }
    case 'execute': {
      const taskEl = elements(body, 'task')[0]
      const cap = taskEl?.attrs.capability as Capability | undefined
      return {
        kind,
        path,
        task: unescapeText(taskEl?.body ?? ''),
        capability: cap && CAPABILITIES.includes(cap) ? cap : 'can_write_text',
        dependencies: pairs(first(body, 'dependencies'), 'dependency'),
        ...redoOf(first(body, 'redo')),
      }
    }
    case 'rollup':
      return { kind, path, parts: pairs(first(body, 'parts'), 'part') }
  }
}

/** Recognise and rebuild a task from a system + user prompt pair; undefined if not ours. */
export function parsePrompts(system: string, prompt: string): LlmTask | undefined {
  const kind = taskKindFromSystem(system)
  return kind ? parseUserPrompt(kind, prompt) : undefined
}
