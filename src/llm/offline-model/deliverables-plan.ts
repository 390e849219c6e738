/**
 * Planning deliverables: an itinerary, a schedule, a budget table and a
 * checklist. Content pools are picked by the leaf's domain; the seed varies
 * order and figures so peers' results differ like real models' would.
 */
import { domainOf, money, table, type Leaf } from './leaf'
import { BUDGET_LINES, ITEMS, WEEK_FOCUS } from './pools'
import { capitalise, clip } from './text'

/** Itineraries longer than this are shown as a first fortnight and a note: a table that long helps nobody. */
const MAX_ITINERARY_DAYS = 14
const DEFAULT_TRIP_DAYS = 7
/** Nights spent per base before moving on: a common comfortable pace. */
const NIGHTS_PER_BASE = 3

const BASES: Record<string, readonly string[]> = {
  japan: ['Tokyo', 'Hakone', 'Kyoto', 'Nara', 'Osaka', 'Hiroshima'],
  italy: ['Rome', 'Florence', 'Cinque Terre', 'Venice', 'Naples'],
  france: ['Paris', 'Loire Valley', 'Lyon', 'Provence', 'Nice'],
  spain: ['Madrid', 'Seville', 'Granada', 'Valencia', 'Barcelona'],
  portugal: ['Lisbon', 'Sintra', 'Porto', 'Douro Valley', 'Algarve'],
  mexico: ['Mexico City', 'Oaxaca', 'San Cristóbal', 'Mérida', 'Tulum'],
}

const DAY_PLANS = [
  'Old town on foot in the morning; lunch at a local market; viewpoint at sunset',
  'Main museum or historic site early (book a timed ticket); afternoon in a park or garden',
  'Day trip to a nearby town or nature spot; back for a late dinner',
  'Neighbourhood walk, coffee and small shops; evening food tour',
  'Free morning to rest; afternoon cultural visit (temple, cathedral or gallery)',
  'Hike or bike ride while the weather is cool; early dinner',
  'Cooking class or craft workshop; evening at a local bar or night market',
  'Slow day: café, bath house or beach; pack for the next stop',
]

export function itinerary(leaf: Leaf): string {
  const days = Math.min(leaf.days ?? DEFAULT_TRIP_DAYS, MAX_ITINERARY_DAYS)
  const known = BASES[(leaf.place ?? '').toLowerCase()]
  const bases = known ? [...known] : ['first base', 'second base', 'third base']
  const plans = leaf.rng.shuffle(DAY_PLANS)
  const rows: string[][] = []
  for (let d = 1; d <= days; d++) {
    const base = bases[Math.min(Math.floor((d - 1) / NIGHTS_PER_BASE), bases.length - 1)] ?? 'base'
    const moving = d > 1 && (d - 1) % NIGHTS_PER_BASE === 0
    let plan = plans[(d - 1) % plans.length] ?? ''
    if (d === 1) plan = 'Arrive, check in, short walk nearby, early night to beat jet lag'
    else if (d === days) plan = 'Last breakfast, souvenir stop, transfer to the airport'
    else if (moving)
      plan = `Travel to ${base} in the morning; check in; ${plan.split(';')[0]?.toLowerCase()}`
    rows.push([`Day ${d}`, capitalise(base), plan])
  }
  const where = leaf.place ? ` in ${leaf.place}` : ''
  const more =
    (leaf.days ?? 0) > MAX_ITINERARY_DAYS
      ? `\nDays ${MAX_ITINERARY_DAYS + 1} onward repeat the pattern: about ${NIGHTS_PER_BASE} nights per base, one slow day in four.\n`
      : ''
  return [
    `## ${leaf.task}`,
    '',
    `A ${days}-day outline${where}, about ${NIGHTS_PER_BASE} nights per base so no day is spent only in transit.`,
    '',
    table(['Day', 'Base', 'Plan'], rows),
    more,
    '**Tips:** book timed tickets for the busiest sights a few weeks ahead; keep one evening per base unplanned.',
  ].join('\n')
}

/** Headroom for surprises: 10% is the usual planning rule of thumb. */
const BUFFER = 0.1

export function budgetTable(leaf: Leaf): string {
  const domain = domainOf(leaf)
  const lines = BUDGET_LINES[domain]
  const nights = leaf.days ?? DEFAULT_TRIP_DAYS
  let low = 0
  let high = 0
  const rows = lines.map(([item, lo, hi]) => {
    // Travel lodging and food are per day; scale them by the trip length.
    const per = domain === 'travel' && (item === 'Accommodation' || item === 'Food') ? nights : 1
    const spread = 0.9 + leaf.rng.next() * 0.2
    const a = lo * per * spread
    const b = hi * per * spread
    low += a
    high += b
    return [item, money(a), money(b), per > 1 ? `${per} days` : '']
  })
  rows.push([
    `Buffer (${BUFFER * 100}%)`,
    money(low * BUFFER),
    money(high * BUFFER),
    'for surprises',
  ])
  rows.push([
    '**Total**',
    `**${money(low * (1 + BUFFER))}**`,
    `**${money(high * (1 + BUFFER))}**`,
    '',
  ])
  return [
    `## ${leaf.task}`,
    '',
    table(['Item', 'Low', 'High', 'Notes'], rows),
    '',
    'Figures are typical ranges from the offline model: replace each line with a real quote before committing money. Track actual spend in a copy of this table.',
  ].join('\n')
}

const RUN_OF_SHOW = [
  ['-3 h', 'Setup crew arrives; tables, decorations, sound check'],
  ['-1 h', 'Food and drinks delivered; final walk-through with helpers'],
  ['0:00', 'Doors open; welcome drinks and music'],
  ['+0:45', 'Welcome words; main activity starts'],
  ['+1:30', 'Food served'],
  ['+2:30', 'Cake, toasts or the main moment'],
  ['+3:30', 'Wind-down music; thank guests at the door'],
  ['+4:00', 'Clean-up and pack-down; return rentals next morning'],
]

export function schedule(leaf: Leaf): string {
  if (/\b(run-of-show|day itself|on the day|timeline for the day)\b/i.test(leaf.task)) {
    return [
      `## ${leaf.task}`,
      '',
      table(['Time', 'What happens'], RUN_OF_SHOW),
      '',
      'Give every line an owner and share the sheet with helpers the day before.',
    ].join('\n')
  }
  const domain = domainOf(leaf)
  const focus = WEEK_FOCUS[domain]
  const weeks = /\b12-week\b/i.test(leaf.task) ? 12 : focus.length
  const rows = Array.from({ length: weeks }, (_, i) => [
    `Week ${i + 1}`,
    focus[Math.min(i, focus.length - 1)] ?? '',
    i % 4 === 3
      ? 'Lighter week: review and catch up'
      : leaf.rng.pick(['3 sessions', '4 sessions', '2 long sessions', '5 short sessions']),
  ])
  return [
    `## ${leaf.task}`,
    '',
    table(['Week', 'Focus', 'Load'], rows),
    '',
    'Put each session in the calendar now; move, do not skip, a missed session.',
  ].join('\n')
}

/** A checklist long enough to be useful, short enough to be read. */
const CHECKLIST_MIN = 6
const CHECKLIST_MAX = 10

export function checklist(leaf: Leaf): string {
  const pool = ITEMS[domainOf(leaf)]
  const n = Math.min(pool.length, CHECKLIST_MIN + leaf.rng.int(CHECKLIST_MAX - CHECKLIST_MIN + 1))
  const items = pool.slice(0, n).map((item) => `- [ ] ${item}`)
  return [
    `## ${leaf.task}`,
    '',
    ...items,
    '',
    `Tick items off as they are done; anything still open a week before the deadline for "${clip(leaf.path.at(-1) ?? leaf.task, 80)}" gets an owner and a date.`,
  ].join('\n')
}
