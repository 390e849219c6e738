/**
 * The offline placeholder's answer to a leaf: it says what it is, quotes
 * the leaf and where it sits in the tree, lists the parts the leaf names,
 * and quotes what it builds on, so the flow of results is visible. It
 * writes no content it does not have. A redo quotes the author's note and
 * does what can be done plainly: shorter when asked, and the note's points
 * carried in as a checklist.
 */
import { MAX_OUTPUT } from '../../protocol/limits'
import type { LlmOutputs, LlmTask } from '../types'
import { clause, colonList, points, quote } from './words'

export type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

/** How every offline answer and document starts. */
export const PLACEHOLDER_MARK = '> **Offline placeholder.**'
/** The first line of every offline answer: what it is, said plainly. */
export const PLACEHOLDER =
  `${PLACEHOLDER_MARK} The built-in offline model does not understand this task: it ` +
  'shows how the swarm works, using the task’s own words. A real model (model settings) writes the real content.'

/** How much of each earlier result to quote: enough to show it arrived. */
const EXCERPT = 160
const SHORTER = /\b(short\w*|brief\w*|concise|too long|less)\b/i

/** What shows an earlier result arrived: what its program printed, or its first line of prose. */
function excerpt(output: string): string {
  const printed = /```text\n([\s\S]*?)\n```/.exec(output)?.[1]
  if (printed) return `it printed ${quote(printed.replace(/\s*\n\s*/g, ' · '), EXCERPT)}`
  // an offline answer's prose only says where it sits: its size shows it arrived
  const prose = output.includes(PLACEHOLDER_MARK)
    ? undefined
    : output
        .replace(/```[\s\S]*?```/g, '')
        .split('\n')
        .find((l) => /^[^#>|\s`]/.test(l))
  return prose
    ? quote(prose.replace(/[*_`]+/g, ''), EXCERPT)
    : `its result came in (${output.length} characters)`
}

/**
 * An offline answer: what it is, the leaf as its heading, a redo's note and
 * what was done with it, where the leaf sits and what the answer says, its
 * body, and (unless shortened) what it builds on.
 */
export function answer(task: ExecuteTask, did: string, says: string, body: string[], deps = true) {
  const parent = task.path.at(-1) ?? ''
  const root = task.path[0] ?? ''
  const under = root !== parent ? `, under the goal ${quote(clause(root))}` : ''
  const failed = task.redo?.previous === null ? ' The earlier attempt failed.' : ''
  const redo = task.redo
    ? [`**Redone after the author’s note:** ${quote(task.redo.note, 600)}.${failed} ${did}`, '']
    : []
  const built = task.dependencies.map(
    (d) => `- **${clause(d.text).replace(/[*_`]+/g, '')}**: ${excerpt(d.output)}`,
  )
  const text = [
    ...[PLACEHOLDER, '', `## ${clause(task.task)}`, '', ...redo],
    [parent ? `Part of ${quote(clause(parent))}${under}.` : '', says].filter(Boolean).join(' '),
    ...body,
    ...(deps && built.length ? ['', '### Builds on', '', ...built] : []),
  ].join('\n')
  return text.length <= MAX_OUTPUT ? text : text.slice(0, MAX_OUTPUT)
}

const NEEDS: Record<string, string> = {
  can_write_text: 'A real model writes the text itself here; the offline model has none to give.',
  can_query_api:
    'It needs current facts: a real model with web search looks them up and cites its sources. The offline model looked nothing up.',
}

const checklist = (title: string, items: string[]) =>
  items.length ? ['', `### ${title}`, '', ...items.map((i) => `- [ ] ${i}`)] : []

export function offlineExecute(task: ExecuteTask): LlmOutputs['execute'] {
  const note = task.redo ? clause(task.redo.note) : ''
  const shorter = SHORTER.test(note)
  const asked = points(note)
  if (shorter) {
    const did = 'Shortened, as the note asks: only the task and where it sits are left.'
    return { output: answer(task, did, '', [], false) }
  }
  const did = asked.length
    ? 'The offline model cannot rewrite content by a note; it has carried the note’s points in below, for a real model or a person to do.'
    : ''
  const body = [
    ...checklist('Parts the task names', colonList(task.task)?.items ?? []),
    ...checklist('From the author’s note', asked),
  ]
  return { output: answer(task, did, NEEDS[task.capability] ?? NEEDS.can_write_text!, body) }
}
