/**
 * A leaf sent back with a note (issue 27, issue 43: "a redo that appends
 * one line"). The offline model reads the note for the form it asks for
 * (shorter, a checklist, a table, a schedule, an itinerary, more detail),
 * redraws the deliverable in that form with a new seed, and if the result
 * still shares most of its lines with the earlier output it recasts it in
 * another form: a redo is always materially different. The note opens the
 * answer and its points close it, so the person sees it was followed.
 */
import type { LlmTask } from '../types'
import { brief } from './deliverables-docs'
import { budgetTable, itinerary, schedule } from './deliverables-plan'
import { table, type Leaf } from './leaf'
import { clip } from './text'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

/** A redo sharing more than this fraction of its lines with the output it replaces is recast. */
const MAX_SHARED_LINES = 0.5
/** A shortened answer at most this fraction of the old one's length is different enough. */
const SHORT_FRACTION = 0.6
/** Lines a shortened answer keeps after its heading. */
const SHORT_LINES = 6
const MAX_NOTE_SHOWN = 300

export interface RedoMakers {
  leafFor(task: ExecuteTask, seed: string, ...more: string[]): Leaf
  leafBody(task: ExecuteTask, leaf: Leaf): string
  /** another take on the same deliverable, for leaves whose body does not vary (code) */
  alternative(task: ExecuteTask, leaf: Leaf): string | undefined
}

type Form = 'short' | 'checklist' | 'table' | 'schedule' | 'itinerary' | 'long'

const FORMS: readonly [Form, RegExp][] = [
  ['short', /\b(short\w*|brief\w*|concise|too long|summar\w*|tl;?dr|less detail)\b/i],
  ['checklist', /\b(check-?list|to-?do|tick\w*|bullet\w*)\b/i],
  ['itinerary', /\b(itinerary|day by day|day-by-day|per day)\b/i],
  ['schedule', /\b(schedule|timeline|calendar|week by week|weekly)\b/i],
  ['table', /\b(table|compare|comparison|costs?|prices?|budget)\b/i],
  ['long', /\b(more detail|detailed|longer|expand|elaborate|deeper|more depth|too short)\b/i],
]

const FORM_WORDS: Record<Form, string> = {
  short: 'shortened to the essentials',
  checklist: 'recast as a checklist',
  table: 'recast as a table',
  schedule: 'laid out as a schedule',
  itinerary: 'laid out day by day',
  long: 'expanded with more detail',
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l.length > 0)
}

/** Fraction of `next`'s lines that were already in `previous`. */
export function sharedLines(next: string, previous: string): number {
  const before = new Set(lines(previous))
  const after = lines(next)
  return after.length === 0 ? 1 : after.filter((l) => before.has(l)).length / after.length
}

/** The items of a body: its list lines and table rows, as plain text. */
function itemsOf(body: string): string[] {
  return body
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^([-*+]|\d+\.|\|)/.test(l) && !/^\|\s*-/.test(l))
    .map((l) =>
      l.startsWith('|')
        ? l
            .split('|')
            .map((c) => c.trim())
            .filter(Boolean)
            .join(': ')
        : l.replace(/^([-*+]|\d+\.)\s+(\[[ x]\]\s+)?/, ''),
    )
    .filter((l) => l.length > 0)
}

function heading(leaf: Leaf): string {
  return `## ${leaf.task}`
}

function asChecklist(leaf: Leaf, body: string): string {
  const items = itemsOf(body)
  const shown = items.length > 0 ? items : [leaf.task]
  return [heading(leaf), '', ...shown.map((i) => `- [ ] ${i}`)].join('\n')
}

function asTable(leaf: Leaf, body: string): string {
  if (/\b(costs?|prices?|budget)\b/i.test(leaf.task)) return budgetTable(leaf)
  const rows = itemsOf(body).map((item, i) => {
    const [what, ...rest] = item.split(/:\s+/)
    return [String(i + 1), what ?? item, rest.join(': ') || '—']
  })
  return [heading(leaf), '', table(['#', 'Item', 'Detail'], rows)].join('\n')
}

function shortened(leaf: Leaf, body: string): string {
  const kept: string[] = []
  let count = 0
  for (const line of body.split('\n').slice(1)) {
    if (line.trim() !== '' && ++count > SHORT_LINES) break
    kept.push(line)
  }
  return [heading(leaf), ...kept].join('\n').trimEnd()
}

function inForm(form: Form, leaf: Leaf, body: string): string {
  switch (form) {
    case 'short':
      return shortened(leaf, body)
    case 'checklist':
      return asChecklist(leaf, body)
    case 'table':
      return asTable(leaf, body)
    case 'schedule':
      return schedule(leaf)
    case 'itinerary':
      return itinerary(leaf)
    case 'long':
      return `${body}\n\n### More detail\n\n${brief(leaf).split('\n').slice(2).join('\n')}`
  }
}

/** The note's points: its sentences and semicolon- or comma-separated requests. */
function points(note: string): string[] {
  return note
    .split(/[.;\n]+|,\s+(?=[a-z])/i)
    .map((p) => p.trim())
    .filter((p) => p.length > 1)
}

export function redoBody(task: ExecuteTask, seed: string, make: RedoMakers): string {
  const note = (task.redo?.note ?? '').trim()
  const previous = task.redo?.previous ?? ''
  // a new seed: figures and orders are drawn afresh, as a real model's second try would be
  const leaf = make.leafFor(task, seed, 'redo', note)
  const base = make.leafBody(task, leaf)
  const asked = FORMS.find(([, re]) => re.test(note))?.[0]
  let form: Form | undefined = asked
  let body = asked ? inForm(asked, leaf, base) : base
  const other = make.alternative(task, leaf)
  if (other && sharedLines(body, previous) > MAX_SHARED_LINES) {
    form = undefined
    body = other
  }
  // still mostly the old answer: recast it until it is not
  const differs = () =>
    sharedLines(body, previous) <= MAX_SHARED_LINES ||
    (asked === 'short' && body.length <= previous.length * SHORT_FRACTION)
  for (const other of ['checklist', 'table', 'long'] as const) {
    if (differs()) break
    form = other
    body = inForm(other, leaf, base)
  }
  const changed = form ? FORM_WORDS[form] : 'redrawn'
  const noteShown = clip(note.replace(/\s+/g, ' '), MAX_NOTE_SHOWN)
  const pts = points(note)
  return [
    `> Redone following the author's note: “${noteShown}” (${changed}).`,
    '',
    body,
    ...(pts.length > 0
      ? ['', '### From the note', '', ...pts.map((p) => `- [ ] ${clip(p, MAX_NOTE_SHOWN)}`)]
      : []),
  ].join('\n')
}
