/**
 * Research deliverables: the questions to ask, where to look, or a summary
 * of findings. The offline model knows no facts, so it gives structure
 * (questions, source types, a findings template) and says plainly which
 * parts a person or a real model must fill in.
 */
import { table, type Leaf } from './leaf'
import { capitalise, clip, objectOf, withoutArticle } from './text'

function subject(leaf: Leaf): string {
  const rest = leaf.task.replace(
    /^(list|find|gather|collect|summari[sz]e|synthesi[sz]e|analy[sz]e|research)\s+(the\s+)?(questions to answer about\s+)?/i,
    '',
  )
  // After a verb the text is mid-sentence: keep its capitals (names like "Japan's").
  return rest === leaf.task ? objectOf(rest, 90) : clip(withoutArticle(rest), 90)
}

function questions(leaf: Leaf): string {
  const s = subject(leaf)
  const qs = [
    `What are the main options for ${s}, and how do they differ?`,
    `What are the typical costs for ${s}, and what drives them up?`,
    `When is the best time for ${s}, and which periods are busy or closed?`,
    `Which rules, permits or bookings apply to ${s}?`,
    `What do people who have done this recommend, and what do they regret?`,
    `What could go wrong, and what is the fallback?`,
  ]
  return [
    `## ${leaf.task}`,
    '',
    ...leaf.rng.shuffle(qs).map((q, i) => `${i + 1}. ${q}`),
    '',
    'Answer each in two or three lines with a source; mark anything that needs a live check.',
  ].join('\n')
}

function sources(leaf: Leaf): string {
  const rows = [
    [
      'Official or primary source',
      'Rules, dates, prices as published',
      'Government, operator or vendor sites',
    ],
    [
      'Recent first-hand accounts',
      'What it is really like',
      'Forums, reviews, blogs from the last year',
    ],
    ['Expert overview', 'Context and trade-offs', 'Guidebooks, review articles, courses'],
    ['Data', 'Numbers to compare options', 'Statistics offices, comparison sites, reports'],
  ]
  return [
    `## ${leaf.task}`,
    '',
    `Where to find reliable answers about ${subject(leaf)}:`,
    '',
    table(['Source type', 'Use it for', 'Where'], rows),
    '',
    'Prefer two independent sources per fact; note the date of each.',
  ].join('\n')
}

function findings(leaf: Leaf): string {
  const s = subject(leaf)
  return [
    `## ${leaf.task}`,
    '',
    '### Key findings',
    '',
    `- The options for ${s} differ mainly in cost, time and flexibility; no single option wins on all three.`,
    '- The biggest risk is timing: decisions made late cost more and leave fewer choices.',
    '- First-hand accounts agree more on what to avoid than on what to pick.',
    '',
    '### Comparison',
    '',
    table(
      ['Criterion', 'Option A', 'Option B', 'Option C'],
      [
        ['Cost', 'Low', 'Medium', 'High'],
        ['Effort', 'High', 'Medium', 'Low'],
        ['Flexibility', 'Medium', 'High', 'Low'],
      ],
    ),
    '',
    `### Confidence`,
    '',
    `Offline model: this is the shape of a summary, not checked facts. ${capitalise(s)} needs its figures verified against current sources.`,
  ].join('\n')
}

export function researchNotes(leaf: Leaf): string {
  if (/\b(summari[sz]e|synthesi[sz]e|findings|analy[sz]e|conclusions?)\b/i.test(leaf.task))
    return findings(leaf)
  if (/^(find|gather|collect|identify)\b|\bsources\b/i.test(leaf.task)) return sources(leaf)
  if (/\bquestions?\b/i.test(leaf.task)) return questions(leaf)
  return sources(leaf)
}
