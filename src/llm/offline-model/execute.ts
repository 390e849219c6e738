/**
 * Offline execution: a real-looking Markdown deliverable for a leaf, about
 * that leaf. The shape follows the leaf: code for can_run_code, an options
 * table for can_query_api (clearly marked as needing a live check, since
 * nothing here can look anything up), and for written work the thing its
 * head names (an itinerary, a budget, a schedule), one section per part it
 * lists (topics.ts), a review of the parts it checks, or a draft, checklist
 * or short brief chosen from its words. A redo follows the note (redo.ts).
 */
import type { LlmOutputs, LlmTask } from '../types'
import { MAX_OUTPUT } from '../../protocol/limits'
import { codeSketch } from './deliverables-code'
import { runnableSketch } from './deliverables-runnable'
import { brief, draftText, optionsTable } from './deliverables-docs'
import { researchNotes } from './deliverables-research'
import { budgetTable, checklist, itinerary, schedule } from './deliverables-plan'
import { table, type Leaf } from './leaf'
import { rngFor } from './rng'
import { redoBody } from './redo'
import { knowsTopic, topicSections } from './topics'
import { capitalise, clause, clip, daysOf, listItems, placeOf } from './text'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

/** How much of each dependency's result to quote: enough to show it was used, not the whole thing. */
const DEPENDENCY_EXCERPT = 160

/** Deliverables named by the head of a leaf (before its first comma or colon): the leaf is that thing. */
const NAMED: readonly { re: RegExp; make: (leaf: Leaf) => string }[] = [
  { re: /\b(itinerary|day-by-day|day by day|route)\b/i, make: itinerary },
  { re: /\b(budget|costs?|forecast|cash-flow|spending)\b/i, make: budgetTable },
  {
    re: /\b(schedule|timeline|calendar|weekly|12-week|program|routine|run-of-show|milestones?)\b/i,
    make: schedule,
  },
]

/** Otherwise the shape follows words anywhere in the leaf. */
const KINDS: readonly { re: RegExp; make: (leaf: Leaf) => string }[] = [
  {
    re: /\b(questions?|sources?|evidence|summari[sz]e|synthesi[sz]e|findings|analy[sz]e|research)\b/i,
    make: researchNotes,
  },
  ...NAMED,
  {
    re: /\b(invitations?|email|announcement|speech|post|letter|message|draft|write|outline)\b/i,
    make: draftText,
  },
  { re: /\b(checklist|pack\w*|supplies|inventory|get ready)\b/i, make: checklist },
]

/** A check or review of earlier parts: one line per part it builds on. */
function review(leaf: Leaf, dependencies: readonly { text: string }[]): string {
  return [
    `## ${leaf.task}`,
    '',
    ...dependencies.map((d) => `- [ ] ${plainLine(d.text)}: done, and consistent with the others`),
    '- [ ] Nothing the goal needs falls between these parts',
    '',
    `Anything unticked goes back to its part with a note before "${clip(leaf.path.at(-1) ?? leaf.task, 80)}" counts as done.`,
  ].join('\n')
}

/** "Compare the options for X on price, timing and terms": criteria as columns, the parent's parts as rows. */
function comparison(leaf: Leaf): string | undefined {
  const m = /^compare\b.*?\bon\s+(.+)$/i.exec(leaf.task)
  const criteria = m ? listItems(`Compare ${m[1]}`) : []
  if (criteria.length < 2) return undefined
  const parent = listItems(leaf.path.at(-1) ?? '')
  const options = parent.length >= 2 ? parent : ['Option A', 'Option B', 'Option C']
  return [
    `## ${leaf.task}`,
    '',
    table(
      ['Option', ...criteria.map(capitalise)],
      options.map((o) => [capitalise(o), ...criteria.map(() => 'to check')]),
    ),
    '',
    `Fill each cell from the provider's own site for your dates; the offline model cannot look ${criteria.join(', ')} up.`,
  ].join('\n')
}

/** Written work for a leaf, about that leaf (issue 43). */
function written(task: ExecuteTask, leaf: Leaf): string {
  // "Get ready to leave: home arrangements" is about home arrangements
  const colon = leaf.task.indexOf(':')
  const subject = colon >= 0 ? leaf.task.slice(colon + 1).trim() : leaf.task
  const head = subject.split(/[,:]/)[0] ?? subject
  if (/^(check|review|verify)\b/i.test(leaf.task) && task.dependencies.length >= 2)
    return review(leaf, task.dependencies)
  const compared = comparison(leaf)
  if (compared) return compared
  const named = NAMED.find((k) => k.re.test(head))
  if (named) return named.make(leaf)
  if (listItems(leaf.task).length >= 2) return topicSections(leaf)
  if (/\b(check-?list|packing list)\b/i.test(head)) return checklist(leaf)
  if (knowsTopic(head)) return topicSections(leaf)
  return (KINDS.find((k) => k.re.test(subject))?.make ?? brief)(leaf)
}

/** One line of Markdown as plain text: no emphasis, code or link markup left to dangle. */
export function plainLine(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The first line of prose in a result: not a heading, table, fence, rule or quote marker. */
function firstProse(output: string): string {
  let inFence = false
  for (const raw of output.split('\n')) {
    const line = raw.trim()
    if (/^(```|~~~)/.test(line)) {
      inFence = !inFence
      continue
    }
    if (inFence || line === '' || /^(#|\||---|===)/.test(line)) continue
    const text = plainLine(
      line.replace(/^([>\-*+]|\d+\.|\[[ x]\])(\s+|$)/g, '').replace(/^\[[ x]\]\s+/, ''),
    )
    if (text.length > 0) return text
  }
  return ''
}

/** "Builds on": each dependency by name, with its first line of prose (issue 43: no stray markup). */
function dependencyNote(task: ExecuteTask): string {
  if (task.dependencies.length === 0) return ''
  const lines = task.dependencies.map((d) => {
    const excerpt = clip(firstProse(d.output), DEPENDENCY_EXCERPT)
    const name = `**${clip(plainLine(d.text), 100)}**`
    return excerpt ? `- ${name}: ${excerpt}` : `- ${name}`
  })
  return `\n\n### Builds on\n\n${lines.join('\n')}`
}

export function leafFor(task: ExecuteTask, seed: string, ...more: string[]): Leaf {
  return {
    task: clause(task.task),
    path: task.path,
    place: placeOf([...task.path, task.task]),
    days: daysOf([...task.path, task.task]),
    rng: rngFor('execute', seed, task.task, ...more, ...task.path),
  }
}

/** The deliverable's body for a leaf, before what it builds on. */
export function leafBody(task: ExecuteTask, leaf: Leaf): string {
  if (task.capability === 'can_run_code') return codeSketch(leaf)
  if (task.capability === 'can_query_api') return optionsTable(leaf)
  return written(task, leaf)
}

/** A body with what it builds on, and for a redo what changed; clipped to the protocol's limit. */
export function finish(task: ExecuteTask, body: string): string {
  const output = `${body}${dependencyNote(task)}`
  return output.length <= MAX_OUTPUT ? output : output.slice(0, MAX_OUTPUT)
}

/** A code leaf's other take: the runnable JavaScript with its checks, written out (not run here). */
function alternative(task: ExecuteTask, leaf: Leaf): string | undefined {
  if (task.capability !== 'can_run_code') return undefined
  const code = runnableSketch(leaf)
  return [
    `## ${leaf.task}`,
    '',
    `Approach: ${code.approach}, as plain JavaScript with its own checks.`,
    '',
    code.shown,
    '',
    `**Use:** ${code.usage}`,
    '',
    '_Written, not run: run it with Node to see the checks pass before relying on it._',
  ].join('\n')
}

export function offlineExecute(task: ExecuteTask, seed: string): LlmOutputs['execute'] {
  if (task.redo)
    return { output: finish(task, redoBody(task, seed, { leafFor, leafBody, alternative })) }
  return { output: finish(task, leafBody(task, leafFor(task, seed))) }
}
