/**
 * Written deliverables: a draft (invitation, email, post, outline), a short
 * brief for anything else, and an options table for leaves that need live
 * data, which the offline model cannot fetch: it says so and lists what to
 * verify rather than pretending.
 */
import { domainOf, money, table, type Domain, type Leaf } from './leaf'
import { capitalise, clip, lowerFirst, objectOf, theObject } from './text'

export function draftText(leaf: Leaf): string {
  const goal = clip(leaf.path[0] ?? leaf.task, 120)
  if (/\b(invitations?|invite)\b/i.test(leaf.task)) {
    return [
      `## ${leaf.task}`,
      '',
      '**Subject:** You are invited!',
      '',
      `> Hello {name},`,
      '>',
      `> We would love you to join us for ${theObject(goal, 80)}.`,
      '> **When:** {date}, from {time}  ',
      '> **Where:** {venue address}  ',
      '> Please reply by {RSVP date} and let us know about any dietary needs.',
      '>',
      '> See you there!',
      '',
      'Send it four to six weeks ahead; follow up with a reminder one week before.',
    ].join('\n')
  }
  if (/\b(email|message|letter|announcement|post)\b/i.test(leaf.task)) {
    return [
      `## ${leaf.task}`,
      '',
      `**Subject:** ${capitalise(clip(objectOf(leaf.task, 70), 70))}`,
      '',
      'Hi {name},',
      '',
      `I am writing about ${lowerFirst(clip(goal, 100))}. In short: what is happening, why it matters to you, and what we need from you.`,
      '',
      '- **What:** one sentence on the news or the request',
      '- **When:** the date or deadline',
      '- **Next step:** the one action you would like the reader to take',
      '',
      'Thanks,  ',
      '{your name}',
    ].join('\n')
  }
  const sections = leaf.rng
    .shuffle(['Background', 'Key points', 'Options considered', 'Examples', 'Open questions'])
    .slice(0, 3)
  return [
    `## ${leaf.task}`,
    '',
    `**Purpose:** ${capitalise(lowerFirst(leaf.task))}, as part of "${goal}".`,
    '',
    '### Outline',
    '',
    '1. Introduction: the problem and who it is for',
    ...sections.map((s, i) => `${i + 2}. ${s}`),
    `${sections.length + 2}. Conclusion and next steps`,
    '',
    '### Opening paragraph (draft)',
    '',
    `${capitalise(lowerFirst(goal))} is easier when the work is split into clear steps. This part covers ${lowerFirst(objectOf(leaf.task, 100))}: what it involves, the choices to make, and what done looks like.`,
  ].join('\n')
}

export function brief(leaf: Leaf): string {
  const obj = lowerFirst(objectOf(leaf.task, 100))
  const steps = [
    `Write down what "done" means for ${obj}, with a date`,
    `Collect what is needed: information, tools, people`,
    `${capitalise(lowerFirst(leaf.task))}, in one focused session if possible`,
    'Check the result against the definition of done',
    'Share the result with whoever depends on it',
  ]
  const risks = leaf.rng.shuffle([
    'It takes longer than expected: time-box it and cut scope',
    'Missing information: ask early, not at the deadline',
    'Someone else is needed: book their time now',
    'Costs more than planned: set a limit first',
  ])
  return [
    `## ${leaf.task}`,
    '',
    `**Outcome:** ${obj}, finished and recorded where the rest of the plan can use it.`,
    '',
    '### Steps',
    '',
    ...steps.map((s, i) => `${i + 1}. ${s}`),
    '',
    '### Risks',
    '',
    ...risks.slice(0, 2).map((r) => `- ${r}`),
  ].join('\n')
}

interface OptionSpec {
  header: readonly string[]
  rows: (leaf: Leaf) => string[][]
}

const priced = (leaf: Leaf, lo: number, hi: number): string => {
  const a = lo * (0.85 + leaf.rng.next() * 0.3)
  return `${money(a)}–${money(a * (hi / lo))}`
}

const OPTIONS: Partial<Record<Domain, OptionSpec>> = {
  travel: {
    header: ['Option', 'Typical price', 'Good for', 'Check'],
    rows: (leaf) => {
      const flights = [
        [
          'Direct flight, full-service airline',
          priced(leaf, 900, 1.6 * 900),
          'Least travel time',
          'Baggage included?',
        ],
        ['One-stop flight', priced(leaf, 650, 1.5 * 650), 'Lower fares', 'Layover length'],
      ]
      const stays = [
        [
          'Central hotel, per night',
          priced(leaf, 110, 1.8 * 110),
          'Short walks, easy evenings',
          'Free cancellation',
        ],
        [
          'Guesthouse or apartment, per night',
          priced(leaf, 70, 1.7 * 70),
          'Space, kitchen',
          'Check-in times',
        ],
        [
          'Hostel or capsule, per night',
          priced(leaf, 30, 1.8 * 30),
          'Lowest cost',
          'Lockers, quiet hours',
        ],
      ]
      const transport = [
        [
          'Regional rail or bus pass',
          priced(leaf, 150, 2.2 * 150),
          'Several cities',
          'Which lines it covers',
        ],
        ['Point-to-point tickets', priced(leaf, 20, 4 * 20), 'Few long trips', 'Reserved seats'],
        [
          'Airport train or shuttle',
          priced(leaf, 10, 3 * 10),
          'Arrival day',
          'Last departure time',
        ],
      ]
      const t = leaf.task
      const picked = [
        ...(/\b(flights?|fly|airline)\b/i.test(t) ? flights : []),
        ...(/\b(stay|hotel|accommodation|lodging|nights?)\b/i.test(t) ? stays : []),
        ...(/\b(rail|train|pass(es)?|transfers?|transport|bus)\b/i.test(t) ? transport : []),
      ]
      // none named: the generic look-up table, not another leaf's flights (issue 43)
      return picked
    },
  },
  event: {
    header: ['Option', 'Typical cost', 'Capacity', 'Check'],
    rows: (leaf) => [
      ['Restaurant private room', priced(leaf, 300, 3 * 300), '15–40', 'Minimum spend'],
      ['Community hall', priced(leaf, 150, 2.5 * 150), '30–120', 'Own catering allowed?'],
      ['Garden or home', 'Free–$200', 'Depends on space', 'Weather plan'],
      ['Caterer, per guest', priced(leaf, 18, 2.5 * 18), 'Any', 'Dietary options'],
    ],
  },
  moving: {
    header: ['Option', 'Typical cost', 'Pros', 'Cons'],
    rows: (leaf) => [
      [
        'Full-service movers',
        priced(leaf, 900, 2.5 * 900),
        'Packing and lifting done for you',
        'Book 3–4 weeks ahead',
      ],
      [
        'Movers for loading only + rented van',
        priced(leaf, 400, 2 * 400),
        'Cheaper, still no heavy lifting',
        'You drive',
      ],
      ['Van hire and friends', priced(leaf, 120, 2 * 120), 'Cheapest', 'Time and goodwill'],
    ],
  },
  business: {
    header: ['Competitor or option', 'Price point', 'Strength', 'Gap to exploit'],
    rows: (leaf) => [
      [
        'Established market leader',
        priced(leaf, 40, 2 * 40),
        'Trust, reach',
        'Generic, slow to change',
      ],
      ['Budget alternative', priced(leaf, 15, 2 * 15), 'Price', 'Quality and service'],
      ['Niche specialist', priced(leaf, 60, 2 * 60), 'Expertise', 'Small audience'],
    ],
  },
}

export function optionsTable(leaf: Leaf): string {
  const domain = domainOf(leaf)
  const spec = OPTIONS[domain]
  const intro = `Options for ${lowerFirst(objectOf(leaf.task, 100)).replace(/^(the )?options (for|to) /, '')}.`
  const verify = [
    '- [ ] Current prices and availability for the exact dates',
    '- [ ] Cancellation and change terms',
    '- [ ] Reviews from the last six months',
  ]
  const rows = spec?.rows(leaf) ?? []
  const body =
    spec && rows.length > 0
      ? table(spec.header, rows)
      : table(
          ['What to look up', 'Where', 'Why it matters'],
          [
            [
              capitalise(lowerFirst(objectOf(leaf.task, 60))),
              'Official website or provider',
              'Authoritative, current',
            ],
            ['Recent reviews or reports', 'Review sites, forums', 'Real-world experience'],
            ['Prices or rates', 'Two comparison sites', 'Spot outliers'],
          ],
        )
  return [
    `## ${leaf.task}`,
    '',
    intro,
    '',
    body,
    '',
    '**Offline model:** no live lookup was possible, so figures are typical ranges. Verify before deciding:',
    '',
    ...verify,
  ].join('\n')
}
