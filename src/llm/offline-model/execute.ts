/**
 * Offline execution: a real-looking Markdown deliverable for a leaf. The
 * shape follows the leaf: code for can_run_code, an options table for
 * can_query_api (clearly marked as needing a live check, since nothing here
 * can look anything up), and for written work an itinerary, a checklist, a
 * budget table, a schedule or a short brief, chosen from the leaf's words.
 */
import type { LlmOutputs, LlmTask } from '../types'
import { MAX_OUTPUT } from '../../protocol/limits'
import { codeSketch } from './deliverables-code'
import { brief, draftText, optionsTable } from './deliverables-docs'
import { researchNotes } from './deliverables-research'
import { budgetTable, checklist, itinerary, schedule } from './deliverables-plan'
import type { Leaf } from './leaf'
import { rngFor } from './rng'
import { clause, clip, daysOf, placeOf } from './text'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

/** How much of each dependency's result to quote: enough to show it was used, not the whole thing. */
const DEPENDENCY_EXCERPT = 160

const KINDS: readonly { re: RegExp; make: (leaf: Leaf) => string }[] = [
  {
    re: /\b(questions?|sources?|evidence|summari[sz]e|synthesi[sz]e|findings|analy[sz]e|research)\b/i,
    make: researchNotes,
  },
  {
    re: /\b(itinerary|day-by-day|day by day|route|days?\b.*\bplan|experiences)\b/i,
    make: itinerary,
  },
  { re: /\b(budget|costs?|forecast|cash-flow|spend\w*|prices?)\b/i, make: budgetTable },
  {
    re: /\b(schedule|timeline|calendar|weekly|12-week|program|routine|run-of-show|milestones?)\b/i,
    make: schedule,
  },
  {
    re: /\b(invitations?|email|announcement|speech|post|letter|message|draft|write|outline)\b/i,
    make: draftText,
  },
  {
    re: /\b(check|checklist|pack\w*|prepare|documents?|supplies|list|inventory|setup|get ready)\b/i,
    make: checklist,
  },
]

function dependencyNote(task: ExecuteTask): string {
  if (task.dependencies.length === 0) return ''
  const lines = task.dependencies.map((d) => {
    // The first line of real content: not a heading, not table furniture.
    const firstLine =
      d.output
        .split('\n')
        .filter((l) => !/^\s*(#|\|\s*-)/.test(l))
        .map((l) => l.replace(/^[>*\-\s|[\]]+/, '').trim())
        .find((l) => l.length > 0) ?? ''
    return `- **${clip(d.text, 100)}**: ${clip(firstLine, DEPENDENCY_EXCERPT)}`
  })
  return `\n\n### Builds on\n\n${lines.join('\n')}`
}

export function offlineExecute(task: ExecuteTask, seed: string): LlmOutputs['execute'] {
  const rng = rngFor('execute', seed, task.task, ...task.path)
  const leaf: Leaf = {
    task: clause(task.task),
    path: task.path,
    place: placeOf([...task.path, task.task]),
    days: daysOf([...task.path, task.task]),
    rng,
  }
  let body: string
  if (task.capability === 'can_run_code') body = codeSketch(leaf)
  else if (task.capability === 'can_query_api') body = optionsTable(leaf)
  else body = (KINDS.find((k) => k.re.test(task.task))?.make ?? brief)(leaf)
  // a leaf sent back by its author (issue 27): say how the redo follows their note
  const redo = task.redo ? `\n\n_Redone following the author's note: ${task.redo.note}_` : ''
  const output = `${body}${dependencyNote(task)}${redo}`
  return { output: output.length <= MAX_OUTPUT ? output : output.slice(0, MAX_OUTPUT) }
}
