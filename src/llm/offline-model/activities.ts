/**
 * Decompositions for goals below the root. A subgoal such as "Book flights
 * and rail passes" is an activity, not a whole project, so it is split by
 * what the activity involves (compare, book, confirm), not by the project
 * family it came from. Matched on the subgoal's leading verb or keywords.
 * Same template format as catalog-types.ts.
 */
import type { Variant } from './catalog-types'

export interface Activity {
  id: string
  match: RegExp
  variant: Variant
}

export const ACTIVITIES: readonly Activity[] = [
  {
    id: 'book',
    match: /^(book|reserve|buy|order|purchase|get tickets|make the bookings|secure)\b/i,
    variant: {
      why: 'A booking is compare, decide, book, then keep the paperwork where everyone can find it.',
      steps: [
        ['Compare the options for {the} on price, timing and cancellation terms'],
        ['Book the best option for {the} and keep the confirmations', [0]],
        ['Add the booking details and deadlines to the shared plan and calendar', [1], true],
      ],
    },
  },
  {
    id: 'choose',
    match: /^(choose|select|pick|decide|find|shortlist|compare)\b/i,
    variant: {
      why: 'A choice needs criteria and candidates before a comparison can decide it.',
      steps: [
        ['List the criteria that matter when choosing {the}'],
        ['Gather five to ten candidate options for {the}'],
        ['Compare the candidates against the criteria in a table', [0, 1]],
        ['Decide on one option and record why', [2], true],
      ],
    },
  },
  {
    id: 'budget',
    match: /\b(budget|costs?|cash-flow|forecast|money)\b/i,
    variant: {
      why: 'Every cost listed, each one estimated, then limits set with a buffer for surprises.',
      steps: [
        ['List every cost category for {the}'],
        ['Estimate each cost with a low and a high figure', [0]],
        ['Set spending limits and a 10 percent buffer, and a way to track actual spend', [1]],
      ],
    },
  },
  {
    id: 'schedule',
    match:
      /^(plan|schedule|write a .*(itinerary|schedule|timeline|plan)|create a .*(schedule|plan))\b/i,
    variant: {
      why: 'Fixed constraints first, then a draft schedule, then buffers so one delay does not break it.',
      steps: [
        ['List the fixed dates, constraints and must-dos for {the}'],
        ['Draft the schedule for {the}, one block per day or week', [0]],
        ['Add buffers and a backup option for each critical block', [1], true],
      ],
    },
  },
  {
    id: 'build',
    match:
      /^(build|implement|develop|code|program|create the|add)\b|\b(backend|frontend|api|endpoints?|prototype)\b/i,
    variant: {
      why: 'Interface first so the parts fit, then the implementation, then tests that pin it down.',
      steps: [
        ['Define the interface, data structures and edge cases for {the}'],
        ['Implement {the}', [0]],
        ['Write unit tests for {the}', [0, 1]],
        ['Document how to use and run {the}', [1], true],
      ],
    },
  },
  {
    id: 'design',
    match: /^(design|sketch|define the (data model|architecture))\b/i,
    variant: {
      why: 'Options before commitment, and the decision written down for whoever builds it.',
      steps: [
        ['Sketch two or three options for {the}'],
        ['Pick one option and refine it', [0]],
        ['Write down the design decisions and their trade-offs', [1]],
      ],
    },
  },
  {
    id: 'research',
    match: /^(research|investigate|analy[sz]e|study|identify|collect|gather|check)\b/i,
    variant: {
      why: 'Questions first, so the search is targeted, then sources, then a summary others can use.',
      steps: [
        ['List the questions to answer about {the}'],
        ['Find reliable sources that answer each question', [0]],
        ['Summarise the answers with sources in one page', [1]],
      ],
    },
  },
  {
    id: 'write',
    match:
      /^(write|draft|outline|revise|edit|prepare a|create a (checklist|list|guide|document))\b/i,
    variant: {
      why: 'Outline, draft, then edit: the order that keeps a text coherent.',
      steps: [
        ['Outline {the}: sections and key points'],
        ['Draft {the} from the outline', [0]],
        ['Edit {the} for clarity and completeness', [1]],
      ],
    },
  },
  {
    id: 'setup',
    match: /^(set up|setup|install|configure|handle|sort out|transfer|register)\b/i,
    variant: {
      why: 'Know what is required, put it in place, then check that it actually works.',
      steps: [
        ['List what {the} requires and by when'],
        ['Put {the} in place step by step', [0]],
        ['Check that {the} works in practice and fix what does not', [1]],
      ],
    },
  },
  {
    id: 'do-work',
    match: /^(carry out|do the|work through the tasks)\b/i,
    variant: {
      why: 'Big work goes better in ordered packages, each checked before the next starts.',
      steps: [
        ['Split {the} into three or four work packages in a sensible order'],
        ['Do the first work package and check the result', [0]],
        ['Do the remaining work packages, checking each one', [1]],
        ['Tidy up and record what was done and what is left', [2], true],
      ],
    },
  },
  {
    id: 'learn',
    match: /^(learn|practi[cs]e|study|master|work through|train)\b/i,
    variant: {
      why: 'Understand the basics, practise them, then test yourself honestly.',
      steps: [
        ['Learn the basics of {the} from one good resource'],
        ['Practise {the} in short daily sessions', [0]],
        ['Test yourself on {the} and note the weak spots', [1]],
      ],
    },
  },
  {
    id: 'promote',
    match: /^(promote|market|advertise|launch|announce|run the launch|plan and run)\b/i,
    variant: {
      why: 'Audience and channels decide the content; a schedule and metrics make the campaign measurable.',
      steps: [
        ['Identify the audience and the best channels for {the}'],
        ['Create the content for each channel', [0]],
        ['Schedule the posts and announcements', [1]],
        ['Measure the response and adjust', [2], true],
      ],
    },
  },
  {
    id: 'prepare',
    match: /^(prepare|get ready|pack|organi[sz]e|coordinate|arrange|run)\b/i,
    variant: {
      why: 'A checklist, the missing pieces bought or arranged, then a final check before the day.',
      steps: [
        ['Make a checklist of everything {the} involves'],
        ['Get or arrange the missing items on the checklist', [0]],
        ['Do a final check of {the} two days before it is needed', [1]],
      ],
    },
  },
]

export function activityOf(text: string): Activity | undefined {
  return ACTIVITIES.find((activity) => activity.match.test(text.trim()))
}
