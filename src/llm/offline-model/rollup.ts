/**
 * Offline roll-up: stitch the children's results into one document with a
 * title, an overview, the steps at a glance, and one section per child
 * (its headings pushed one level down so the outline nests). For the root
 * goal this is the final plan, ending with the first actions to take.
 */
import type { LlmOutputs, LlmTask } from '../types'
import { MAX_OUTPUT } from '../../protocol/limits'
import { rngFor } from './rng'
import { clause, clip, lowerFirst } from './text'

type RollupTask = Extract<LlmTask, { kind: 'rollup' }>

/** Markdown stops at h6. */
const MAX_HEADING_LEVEL = 6
/** Parts sit under "## n. title", so their own headings start at h3. */
const SECTION_BODY_LEVEL = 3
/** Room kept for the title, overview and closing sections when parts must be shortened. */
const FRAME_RESERVE = 4_000
/** No part is cut below this, however many parts there are: a stub helps nobody. */
const MIN_PART_BUDGET = 500
/** How much of the goal to quote in the overview sentence. */
const GOAL_QUOTE = 200

/**
 * Fit a part's Markdown under its "## n. title" section: drop a leading
 * heading that only repeats the title, then shift every heading so the
 * shallowest becomes h3, keeping relative depth (code fences untouched).
 */
function nest(output: string, title: string): string {
  const lines = output.trim().split('\n')
  const firstHeading = /^#{1,6}\s+(.*)$/.exec(lines[0] ?? '')
  if (firstHeading && clause(firstHeading[1] ?? '').toLowerCase() === clause(title).toLowerCase())
    lines.shift()
  const isFence = (line: string) => /^(```|~~~)/.test(line)
  let inFence = false
  let shallowest = MAX_HEADING_LEVEL
  for (const line of lines) {
    if (isFence(line)) inFence = !inFence
    const m = inFence ? null : /^(#{1,6})\s/.exec(line)
    if (m) shallowest = Math.min(shallowest, m[1]?.length ?? MAX_HEADING_LEVEL)
  }
  const shift = SECTION_BODY_LEVEL - shallowest
  inFence = false
  return lines
    .map((line) => {
      if (isFence(line)) inFence = !inFence
      const m = inFence ? null : /^(#{1,6})(\s.*)$/.exec(line)
      if (!m) return line
      const level = Math.min(
        MAX_HEADING_LEVEL,
        Math.max(SECTION_BODY_LEVEL, (m[1]?.length ?? 1) + shift),
      )
      return `${'#'.repeat(level)}${m[2]}`
    })
    .join('\n')
    .trim()
}

/** Boilerplate checklist lines that are not real next actions. */
const NOT_AN_ACTION = /^(current prices|cancellation and change|reviews from)/i

/** The first checklist item or numbered step of a part: its most concrete next action. */
function firstAction(output: string): string | undefined {
  const items = output
    .split('\n')
    .filter((l) => /^\s*(- \[ \]|\d+\.)\s+\S/.test(l))
    .map((l) => l.replace(/^\s*(- \[ \]|\d+\.)\s+/, '').trim())
  return items.find((item) => !NOT_AN_ACTION.test(item))
}

export function offlineRollup(task: RollupTask, seed: string): LlmOutputs['rollup'] {
  const goal = clause(task.path.at(-1) ?? 'The goal')
  const isRoot = task.path.length <= 1
  const rng = rngFor('rollup', seed, ...task.path)
  const parts = task.parts
  const budget = Math.max(
    MIN_PART_BUDGET,
    Math.floor((MAX_OUTPUT - FRAME_RESERVE) / Math.max(1, parts.length)),
  )

  const title = isRoot && !/^plan\b/i.test(goal) ? `# Plan: ${goal}` : `# ${goal}`
  const overview = isRoot
    ? `This plan breaks "${clip(goal, GOAL_QUOTE)}" into ${parts.length} parts. Work through them in order; each section below holds the concrete result for its part.`
    : `${parts.length} parts make up ${lowerFirst(clip(goal, GOAL_QUOTE))}; their results follow in order.`
  const glance = parts.map((p, i) => `${i + 1}. ${clause(p.text)}`)
  const sections = parts.map((p, i) => {
    let body = nest(p.output, p.text)
    if (body.length > budget)
      body = `${body.slice(0, budget).trimEnd()}\n\n_(shortened to fit the plan)_`
    return `## ${i + 1}. ${clause(p.text)}\n\n${body}`
  })

  const out = [
    title,
    '',
    overview,
    '',
    '## Steps at a glance',
    '',
    ...glance,
    '',
    ...sections.flatMap((s) => [s, '']),
  ]
  if (isRoot) {
    const actions = parts
      .map((p) => firstAction(p.output))
      .filter((a): a is string => a !== undefined)
      .slice(0, 5)
    const closing = rng.pick([
      'Review this plan with everyone involved and agree who owns each part.',
      'Put the dated items in a shared calendar today.',
      'Start with step 1 this week; it unblocks most of the rest.',
    ])
    out.push(
      '## First actions',
      '',
      ...(actions.length > 0 ? actions.map((a) => `- [ ] ${a}`) : ['- [ ] Start with step 1.']),
      '',
      closing,
    )
  }
  const doc = out.join('\n').trim()
  return { output: doc.length <= MAX_OUTPUT ? doc : doc.slice(0, MAX_OUTPUT) }
}
