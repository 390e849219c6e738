/**
 * How a leaf's steps look (issue 24): pure helpers for the step list. A
 * step is another peer's word: every field is shown as text, and a source
 * becomes a link only when its address is http(s).
 */
import { LANGUAGE_NAMES } from '../../plan/export'
import type { CodeStep, Source, Step, ToolStep } from '../../protocol/steps'

export interface SourceLink {
  /** the address to link to; null when it is not http(s) (then shown as text only) */
  href: string | null
  /** the source's title, or its address when it has none */
  title: string
  /** the site, so a reader sees where a link goes before following it */
  host: string
}

export function sourceLink(source: Source): SourceLink {
  const title = source.title.trim() || source.url
  try {
    const url = new URL(source.url)
    const web = url.protocol === 'http:' || url.protocol === 'https:'
    return { href: web ? url.href : null, title, host: web ? url.host : source.url }
  } catch {
    return { href: null, title, host: source.url }
  }
}

/** "JavaScript, exit code 0, 12 ms" / "JavaScript, timed out after 5.0 s" */
export function codeRunSummary(step: CodeStep): string {
  const took =
    step.durationMs < 1000 ? `${step.durationMs} ms` : `${(step.durationMs / 1000).toFixed(1)} s`
  const ended = step.timedOut ? `timed out after ${took}` : `exit code ${step.exit}, ${took}`
  return `${LANGUAGE_NAMES[step.language]}, ${ended}`
}

/** "answered in 12 ms" / "refused by its person's consent: not run" / "failed after 3.2 s" */
export function toolCallSummary(step: ToolStep): string {
  const took =
    step.durationMs < 1000 ? `${step.durationMs} ms` : `${(step.durationMs / 1000).toFixed(1)} s`
  if (step.status === 'refused') return 'refused by its person’s consent: not run'
  return step.status === 'ok' ? `answered in ${took}` : `failed after ${took}`
}

/** The result was answered from the model's knowledge, as its executor says: not checked live. */
export function fromKnowledge(steps: readonly Step[] | null): boolean {
  return steps?.some((step) => step.type === 'knowledge') ?? false
}

/** The steps that ran something or looked something up, in order. */
export function actions(steps: readonly Step[] | null): Exclude<Step, { type: 'knowledge' }>[] {
  return (steps ?? []).filter(
    (step): step is Exclude<Step, { type: 'knowledge' }> => step.type !== 'knowledge',
  )
}
