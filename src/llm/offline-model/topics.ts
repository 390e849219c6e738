/**
 * What the offline model can say about the parts a leaf names (issue 43:
 * an answer must be about its own leaf). "Check entry requirements, health
 * advice and the best season to visit Japan" gets one section per part,
 * each from the topic it names, filled with the leaf's place; a part no
 * topic knows gets questions about that very part, never another leaf's
 * content. General knowledge and rules of thumb, marked where they need a
 * live check.
 */
import type { Leaf } from './leaf'
import { capitalise, clip, listItems, splitVerb } from './text'

interface Topic {
  re: RegExp
  lines: readonly string[]
}

/** {place}: the leaf's place, or "the destination". */
const TOPICS: readonly Topic[] = [
  {
    re: /\b(entry|visa|passport|border|customs)\b/i,
    lines: [
      "Check {place}'s official immigration site for your nationality: visa-free stay length, or the visa to apply for.",
      'Passport valid for the whole stay (many countries ask for 6 months beyond it) with a free page.',
      'Any online arrival or customs form, filled in a few days before the flight.',
    ],
  },
  {
    re: /\b(health|vaccin\w*|medic\w*|insurance|pharmac\w*)\b/i,
    lines: [
      'Routine vaccinations up to date; ask a travel clinic 6–8 weeks ahead about anything specific to {place}.',
      'Travel insurance covering medical care and evacuation; save its emergency number offline.',
      'Prescription medicines in original packaging, with a copy of the prescription; check they are allowed in {place}.',
    ],
  },
  {
    re: /\b(season|weather|climate|best time|when to go)\b/i,
    lines: [
      'Shoulder seasons (spring and autumn) usually mean mild weather and fewer crowds in {place}.',
      'Avoid national holiday weeks for prices and crowds; check the calendar for your dates.',
      'Pack for the season: layers for spring and autumn, light clothes and rain gear for summer.',
    ],
  },
  {
    re: /\b(fixed dates|dates|deadlines?)\b/i,
    lines: [
      'Departure and return dates, and the latest date to book each big item.',
      'Days that cannot move: events, bookings already made, work or school.',
    ],
  },
  {
    re: /\b(constraints?|limits?|requirements)\b/i,
    lines: [
      'Budget ceiling, and what happens if a price goes over it.',
      'Pace: how many moves, how much walking, who needs rest days or step-free access.',
    ],
  },
  {
    re: /\b(must-dos?|must-sees?|priorities|highlights)\b/i,
    lines: [
      'The three experiences the whole thing is for; everything else is optional.',
      'For each, the day it fits best and whether it needs a booking.',
    ],
  },
  {
    re: /\b(buffers?|backups?|contingenc\w*|plan b)\b/i,
    lines: [
      'One free half-day per base, so a delay or a rainy day costs nothing that was booked.',
      'For each timed booking, a backup nearby that needs no reservation.',
      'Keep the first and last day light: arrivals and departures slip.',
    ],
  },
  {
    re: /\b(phone|sim|esim|roaming|internet|wi-?fi)\b/i,
    lines: [
      'An eSIM for {place} bought before leaving, or your provider’s roaming pass; check your phone is unlocked.',
      'Offline maps and the transit app downloaded before the flight.',
      'A power bank and the right plug adapter.',
    ],
  },
  {
    re: /\b(money|cash|cards?|currency|atm|payments?)\b/i,
    lines: [
      'A card without foreign transaction fees, plus a second card kept apart.',
      'Some local cash for small shops and transport; find out which ATMs take foreign cards.',
      'Tell your bank the travel dates if it blocks unusual spending.',
    ],
  },
  {
    re: /\b(home|house|pets?|plants|mail)\b/i,
    lines: [
      'Someone to check the home, water the plants and collect the mail.',
      'Pet care booked; bills due during the trip paid ahead.',
      'Keys left with a neighbour; heating and appliances set for the absence.',
    ],
  },
  {
    re: /\b(pack\w*|luggage|bags?|clothes)\b/i,
    lines: [
      'One carry-on-sized bag if the route has many moves; luggage forwarding where it exists.',
      'Comfortable walking shoes, layers, a small day bag.',
      'Documents, chargers and medicines in the bag that stays with you.',
    ],
  },
  {
    re: /\b(flights?|fly|airline|airfare)\b/i,
    lines: [
      'Compare direct and one-stop flights to {place} on two comparison sites; fares move, so set an alert.',
      'Open-jaw tickets (in to one city, out of another) save a day of backtracking.',
      'Check baggage allowance and change fees before paying.',
    ],
  },
  {
    re: /\b(stays?|hotels?|accommodation|lodging|ryokan|hostels?|nights?)\b/i,
    lines: [
      'Stay near the main station of each base: moves and day trips start there.',
      'Prefer free cancellation until the route is final.',
      'One special night (a ryokan, a farm stay, a view) is worth more than upgrades everywhere.',
    ],
  },
  {
    re: /\b(transport|rail|trains?|pass(es)?|transfers?|bus|car)\b/i,
    lines: [
      'Price the route leg by leg before buying a rail or regional pass: it pays only with several long trips.',
      'Airport transfers: the train is usually cheapest; note the last departure time.',
      'A rechargeable transit card for city trips.',
    ],
  },
  {
    re: /\b(tickets?|reservations?|bookings?|timed)\b/i,
    lines: [
      'List the sights and shows that sell out, and the date their tickets go on sale.',
      'Book those first; leave the rest flexible.',
      'Keep every confirmation in one shared folder, also offline.',
    ],
  },
  {
    re: /\b(food|restaurants?|eat\w*|cuisine|meals?)\b/i,
    lines: [
      'One food to try in each base, and one place that takes reservations for a special dinner.',
      'Markets and casual counters for most meals keep the budget in line.',
      'Note allergies and dietary needs in the local language.',
    ],
  },
]

function fillPlace(line: string, leaf: Leaf): string {
  return line.replace(/\{place\}/g, leaf.place ?? 'the destination')
}

function section(title: string, lines: readonly string[]): string[] {
  return [`### ${capitalise(title.replace(/^(the|a|an)\s+/i, ''))}`, '', ...lines, '']
}

/** Lines about a part no topic knows: questions about that very part. */
function generic(part: string, leaf: Leaf): string[] {
  if (splitVerb(part).verb) {
    return [
      `- ${capitalise(part)}: who does it, and by when.`,
      '- Where the result is kept, so the rest of the plan can use it.',
    ]
  }
  return [
    `- What ${part} must cover for "${clip(leaf.path.at(-1) ?? leaf.task, 80)}", in one line.`,
    `- The options for ${part}, and the one chosen with the reason.`,
    `- What about ${part} needs a live check before anyone relies on it.`,
  ]
}

/** Sections for the parts: parts one topic covers share one section, so no lines repeat. */
function sections(parts: readonly string[], leaf: Leaf): string[] {
  const groups: { topic: Topic | undefined; parts: string[] }[] = []
  for (const part of parts) {
    const topic = TOPICS.find((t) => t.re.test(part))
    const group = topic && groups.find((g) => g.topic === topic)
    if (group) group.parts.push(part)
    else groups.push({ topic, parts: [part] })
  }
  return groups.flatMap((g) =>
    section(
      g.parts.join(' and '),
      g.topic ? g.topic.lines.map((l) => `- ${fillPlace(l, leaf)}`) : generic(g.parts[0]!, leaf),
    ),
  )
}

/** True when some topic knows this text: a leaf about it gets topic sections. */
export function knowsTopic(text: string): boolean {
  return TOPICS.some((t) => t.re.test(text))
}

/** The parts a leaf names: its list, or its object as one part. */
export function partsOf(leaf: Leaf): string[] {
  const items = listItems(leaf.task)
  if (items.length >= 2) return items
  const colon = leaf.task.indexOf(':')
  if (colon >= 0) return [leaf.task.slice(colon + 1).trim()]
  return [splitVerb(leaf.task).rest || leaf.task]
}

/** One section per part the leaf names, each about that part. */
export function topicSections(leaf: Leaf): string {
  const parts = partsOf(leaf)
  return [
    `## ${leaf.task}`,
    '',
    ...sections(parts, leaf),
    '_Offline model: general knowledge and rules of thumb; check anything dated or priced before relying on it._',
  ].join('\n')
}
