/**
 * Export one root goal's plan: as Markdown (the rolled-up plan document
 * first, then the tree that produced it, then what its executors ran and
 * looked up) or as JSON (the goal's whole tree, each leaf's steps as its
 * result record holds them).
 *
 * Everything in a plan is text from other peers' models: the Markdown keeps
 * a step's code and output inside fences no line of it can close, its
 * sources as http(s) links only, and its other fields escaped.
 */
import type { CodeLanguage, CodeStep, SearchStep, Step, ToolStep } from '../protocol/steps'
import { goalEndWords, goalStatusWords, leafCountWords } from './goal-status'
import type { GoalView, PlanTree, SlotView } from './tree'

export class UnknownGoalError extends Error {
  override name = 'UnknownGoalError'
}

function findGoal(tree: PlanTree, goalId: string): GoalView {
  const goal = tree.goals.find((candidate) => candidate.id === goalId)
  if (!goal) throw new UnknownGoalError(`no root goal ${goalId}`)
  return goal
}

export function exportJson(tree: PlanTree, goalId: string): string {
  return JSON.stringify({ format: 'murmuration-plan/1', goal: findGoal(tree, goalId) }, null, 2)
}

/** How people name each language a code step can be in. */
export const LANGUAGE_NAMES: Record<CodeLanguage, string> = { javascript: 'JavaScript' }

/** CommonMark's shortest fence. */
const MIN_FENCE = 3

/** A backtick fence longer than any run of backticks in `text`, so no line of it closes the block. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  return '`'.repeat(Math.max(MIN_FENCE, longest + 1))
}

/** `text` as a fenced block: shown verbatim, never read as Markdown. */
export function fenced(text: string, info = ''): string {
  const fence = fenceFor(text)
  return `${fence}${info}\n${text.endsWith('\n') ? text : `${text}\n`}${fence}`
}

/** Text on one line with Markdown's punctuation escaped: it reads as itself, not as markup. */
export function escapeInline(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>()#!|~&]/g, (c) => `\\${c}`)
}

/** An http(s) URL as a link destination (spaces, brackets and parentheses percent-encoded); null for any other. */
export function linkTarget(url: string): string | null {
  if (!/^https?:\/\//i.test(url)) return null
  return url.replace(
    /[\s()<>\\]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  )
}

function codeStepLines(step: CodeStep): string[] {
  const ended = step.timedOut ? 'timed out' : `exit code ${step.exit}`
  const lines = [
    `**Ran ${LANGUAGE_NAMES[step.language]}** (${ended}, ${step.durationMs} ms):`,
    '',
    fenced(step.code, step.language),
    '',
  ]
  lines.push('Output:', '', step.stdout ? fenced(step.stdout, 'text') : '_(none)_', '')
  if (step.stderr) lines.push('Errors (stderr):', '', fenced(step.stderr, 'text'), '')
  if (step.error) lines.push(`Error: ${escapeInline(step.error)}`, '')
  return lines
}

function searchStepLines(step: SearchStep): string[] {
  const lines = [`**Searched the web** for “${escapeInline(step.query)}”:`, '']
  if (step.sources.length === 0) lines.push('_(no sources)_')
  for (const source of step.sources) {
    const title = escapeInline(source.title.trim() || source.url)
    const target = linkTarget(source.url)
    lines.push(target ? `- [${title}](${target})` : `- ${title} (${escapeInline(source.url)})`)
  }
  lines.push('')
  return lines
}

function toolStepLines(step: ToolStep): string[] {
  const how =
    step.status === 'refused'
      ? 'refused by its person’s consent, not run'
      : step.status === 'error'
        ? `it failed, ${step.durationMs} ms`
        : `${step.durationMs} ms`
  return [
    `**Called the tool ${escapeInline(step.name)}** of ${escapeInline(step.group)} (${how}) with:`,
    '',
    fenced(step.input, 'json'),
    '',
    step.status === 'ok' ? 'It answered:' : 'Why:',
    '',
    step.output ? fenced(step.output, 'text') : '_(nothing)_',
    '',
  ]
}

export function stepLines(step: Step): string[] {
  switch (step.type) {
    case 'code':
      return codeStepLines(step)
    case 'search':
      return searchStepLines(step)
    case 'knowledge':
      return ["> Answered from the model's knowledge, not checked live.", '']
    case 'tool':
      return toolStepLines(step)
  }
}

/** Leaves with steps under `goal`, depth first, each with its outline number ("2.1"). */
function leavesWithSteps(
  goal: GoalView,
  prefix = '',
): { number: string; slot: SlotView; steps: Step[] }[] {
  return goal.slots.flatMap((slot) => {
    const number = `${prefix}${slot.index + 1}`
    if (slot.goal) return leavesWithSteps(slot.goal, `${number}.`)
    return slot.leaf?.steps ? [{ number, slot, steps: slot.leaf.steps }] : []
  })
}

/** A subgoal's status as the export says it: a failed one with why (why.ts), a child goal's as its tree says it. */
function slotStatus(slot: SlotView): string {
  if (slot.goal) return goalEndWords(slot.goal)
  if (!slot.why) return slot.status
  const said =
    slot.why.kind === 'blocked' ? 'blocked' : slot.why.kind === 'gap' ? 'capability gap' : 'failed'
  return `${said}: ${escapeInline(slot.why.detail)}`
}

function slotLines(slot: SlotView, depth: number): string[] {
  const indent = '  '.repeat(depth)
  const needs = slot.tool ? `${slot.capability}, tool group ${slot.tool}` : slot.capability
  const kind = slot.atomic === null ? '' : slot.atomic ? ` _(leaf, ${needs})_` : ''
  const lines = [`${indent}- **${escapeInline(slot.text)}** — ${slotStatus(slot)}${kind}`]
  if (slot.goal) for (const child of slot.goal.slots) lines.push(...slotLines(child, depth + 1))
  return lines
}

export function exportMarkdown(tree: PlanTree, goalId: string): string {
  const goal = findGoal(tree, goalId)
  const parts: string[] = []
  const plan = goal.rollup.output?.trim()
  // the plan document brings its own title; a second H1 above it would repeat the goal (issue 43)
  if (!plan || !/^# /.test(plan)) parts.push(`# ${escapeInline(goal.text)}`, '')
  if (plan) {
    parts.push(plan, '')
  } else {
    parts.push(
      `_The plan is not finished yet (${escapeInline(goalStatusWords(goal, (peer) => `…${peer.slice(-6)}`))})._`,
      '',
    )
  }
  parts.push('---', '', '## How the swarm split it', '')
  if (goal.leaves.total)
    parts.push(
      `${goalEndWords(goal)[0]!.toUpperCase()}${goalEndWords(goal).slice(1)}: ${leafCountWords(goal.leaves)}.`,
      '',
    )
  for (const slot of goal.slots) parts.push(...slotLines(slot, 0))
  if (goal.accepted) {
    parts.push(
      '',
      `Top-level split accepted by ${goal.accepted.basis} with a mean score of ${goal.accepted.score.toFixed(2)}.`,
    )
  }
  const acted = leavesWithSteps(goal)
  if (acted.length) {
    parts.push('', '## What the executors ran and looked up', '')
    for (const { number, slot, steps } of acted) {
      parts.push(`### ${number}. ${escapeInline(slot.text)}`, '')
      for (const step of steps) parts.push(...stepLines(step))
    }
    // the last step ends with a blank line; the document ends with one newline
    parts.pop()
  }
  return `${parts.join('\n')}\n`
}
