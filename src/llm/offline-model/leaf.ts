/** What a deliverable generator knows about the leaf it is writing for. */
import type { Rng } from './rng'

export interface Leaf {
  /** the leaf's text as a clause (no trailing period) */
  task: string
  /** root -> parent */
  path: readonly string[]
  /** a place named by the leaf or its ancestors */
  place: string | undefined
  /** a duration in days named by the leaf or its ancestors */
  days: number | undefined
  rng: Rng
}

/** Which kind of project the leaf belongs to, judged from the whole path: picks item pools. */
export type Domain =
  'travel' | 'event' | 'moving' | 'fitness' | 'software' | 'business' | 'learning' | 'general'

const DOMAINS: readonly [Domain, RegExp][] = [
  ['software', /\b(app|website|api|software|code|backend|frontend|database|deploy|script|bot)\b/i],
  ['travel', /\b(trip|travel|flights?|itinerary|holiday|vacation|hotel|passport|tour)\b/i],
  ['event', /\b(party|wedding|birthday|event|conference|meetup|celebration|venue|guests?)\b/i],
  ['moving', /\b(move|moving|movers|relocat\w*|boxes|new home|apartment)\b/i],
  ['fitness', /\b(marathon|run|running|fitness|workout|training|gym|weight|nutrition)\b/i],
  ['business', /\b(business|launch|startup|customers?|market|store|shop|brand|pricing)\b/i],
  ['learning', /\b(learn|study|course|practi[cs]e|skill|lesson|fluent)\b/i],
]

export function domainOf(leaf: Leaf): Domain {
  // The leaf's own words first, then its ancestors from the nearest up.
  for (const text of [leaf.task, ...[...leaf.path].reverse()]) {
    const hit = DOMAINS.find(([, re]) => re.test(text))
    if (hit) return hit[0]
  }
  return 'general'
}

/** Round to a "price-like" number: 10s under 1000, 50s above. */
export function roundPrice(x: number): number {
  const step = x < 1000 ? 10 : 50
  return Math.max(step, Math.round(x / step) * step)
}

export function money(x: number): string {
  return `$${roundPrice(x).toLocaleString('en-US')}`
}

/** Markdown table from a header row and body rows. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c) => c.replace(/\|/g, '/')).join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}
