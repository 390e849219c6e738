/**
 * The offline placeholder's roll-up: the goal as the title, what this
 * document is, the parts in the order of the split, then each part's
 * result under its own section (its headings pushed down so the outline
 * nests, its own placeholder line dropped: the document says it once).
 */
import { MAX_OUTPUT } from '../../protocol/limits'
import type { LlmOutputs, LlmTask } from '../types'
import { PLACEHOLDER_MARK } from './execute'
import { clause } from './words'

type RollupTask = Extract<LlmTask, { kind: 'rollup' }>

/** Parts sit under "## n. title", so their own headings start at h3; Markdown stops at h6. */
const PART_LEVEL = 3
const MAX_LEVEL = 6
/** Room kept for the title and the list of parts when parts must be shortened. */
const FRAME_RESERVE = 4_000

const ROLLUP_NOTE =
  `${PLACEHOLDER_MARK} Put together by the built-in offline model, which does not understand ` +
  'the goal: each part below is what its executor (or a deeper split) returned, in the order of the ' +
  'split. A real model writes a real plan.'

/** A part's Markdown under its section: no placeholder line, no heading that repeats its title. */
function nest(output: string, title: string): string {
  const lines = output.split('\n').filter((l) => !l.startsWith(PLACEHOLDER_MARK))
  while (lines[0]?.trim() === '') lines.shift()
  if (/^#+\s/.test(lines[0] ?? '') && clause(lines[0]!.replace(/^#+\s+/, '')) === clause(title))
    lines.shift()
  let fenced = false
  const levels = lines.map((line) => {
    if (/^(```|~~~)/.test(line)) fenced = !fenced
    return fenced ? 0 : (/^(#{1,6})\s/.exec(line)?.[1]?.length ?? 0)
  })
  const shift = PART_LEVEL - Math.min(MAX_LEVEL, ...levels.filter((l) => l > 0))
  return lines
    .map((line, i) => {
      const level = levels[i]!
      return level === 0 ? line : '#'.repeat(Math.min(MAX_LEVEL, level + shift)) + line.slice(level)
    })
    .join('\n')
    .trim()
}

export function offlineRollup(task: RollupTask): LlmOutputs['rollup'] {
  const goal = clause(task.path.at(-1) ?? 'The goal')
  const budget = Math.floor((MAX_OUTPUT - FRAME_RESERVE) / Math.max(1, task.parts.length))
  const sections = task.parts.map((p, i) => {
    const body = nest(p.output, p.text)
    const cut =
      body.length <= budget ? body : `${body.slice(0, budget).trimEnd()}\n\n_(shortened to fit)_`
    return `## ${i + 1}. ${clause(p.text)}\n\n${cut}`
  })
  const doc = [
    `# ${goal}`,
    '',
    ROLLUP_NOTE,
    '',
    `${task.parts.length} parts, in the order of the split:`,
    '',
    ...task.parts.map((p, i) => `${i + 1}. ${clause(p.text)}`),
    '',
    ...sections.flatMap((s) => [s, '']),
  ]
    .join('\n')
    .trim()
  return { output: doc.length <= MAX_OUTPUT ? doc : doc.slice(0, MAX_OUTPUT) }
}
