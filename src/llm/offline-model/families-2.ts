/**
 * Goal families, part 2: business, moving house, fitness and health, research.
 * See catalog-types.ts for the format.
 */
import { aspect, type Family } from './catalog-types'

export const FAMILIES_2: readonly Family[] = [
  {
    id: 'business',
    match:
      /\b(launch|startup|start-up|business|company|product|market\w*|sell|shop|store|brand|freelanc\w*|side hustle|customers?|revenue|e-?commerce|etsy|agency|consultancy)\b/i,
    aspects: [
      aspect('market', /market|customer|competitor|demand/i),
      aspect('offer', /offer|product|pricing|price/i),
      aspect('setup', /legal|registration|bank|bookkeeping|cost|cash|plan/i),
      aspect('marketing', /marketing|channel|launch|brand|website|content/i),
      aspect('operations', /operations|supplier|fulfil|support|metrics|feedback/i),
    ],
    variants: [
      {
        why: 'Market before offer, offer before brand and launch; legal and operations run alongside.',
        steps: [
          ['Research the market for {the}: target customers, competitors and pricing'],
          ['Define the offer: product, price and what makes it different', [0]],
          ['Handle the legal and financial setup: registration, bank account, bookkeeping'],
          ['Build the brand and the sales channel: name, website or storefront', [1]],
          ['Plan and run the launch campaign', [1, 3]],
          ['Set up operations: suppliers, fulfilment and customer support', [1], true],
        ],
      },
      {
        why: 'Lean: write the plan, validate demand with real people, then build only what they asked for and measure it.',
        steps: [
          ['Write a one-page business plan for {the}'],
          ['Validate demand by talking to ten potential customers', [0]],
          ['Create a minimum viable offer and price it', [1]],
          ['Choose two marketing channels and plan the first month of content', [2]],
          ['Define the metrics to track after launch', [2], true],
        ],
      },
      {
        why: 'Find the gap, check the numbers, prepare the launch, then learn from the first customers.',
        steps: [
          ['Analyse competitors and find a gap {the} can fill'],
          ['Estimate startup costs and a 12-month cash-flow forecast', [0]],
          ['Prepare the launch: website, listings and announcement', [0]],
          ['Launch, collect feedback and adjust the offer', [1, 2]],
        ],
      },
    ],
  },
  {
    id: 'moving',
    match: /\b(move|moving|relocat\w*|new (?:apartment|flat|house|home|city)|movers)\b/i,
    aspects: [
      aspect('timeline', /date|timeline|budget|logistics/i),
      aspect('new home', /home|apartment|flat|house|lease|neighbourhood|neighborhood/i),
      aspect('packing', /pack|declutter|belongings|inventory|boxes/i),
      aspect('transport', /movers|van|moving day|moving compan|transport/i),
      aspect('admin', /utilities|address|internet|mail|paperwork|registration/i),
    ],
    variants: [
      {
        why: 'A dated timeline drives the rest: secure the new home, pack, book the move, switch the admin, settle in.',
        steps: [
          ['Set the moving date, budget and a week-by-week timeline for {move}'],
          ['Find and secure the new home: search, viewings and lease or purchase', [0]],
          ['Declutter and pack room by room with labelled boxes', [0]],
          ['Book movers or a van and plan moving day', [0, 1]],
          ['Transfer utilities, internet, mail and address registrations', [1]],
          ['Unpack and set up the essentials in the new home', [3], true],
        ],
      },
      {
        why: 'Choose where to live, shrink what has to move, then book the move and prepare the admin and the first week.',
        steps: [
          ['Compare neighbourhoods in {place|the new area} on cost, commute and amenities'],
          ['Make an inventory of belongings and decide what to sell, donate or keep'],
          ['Get quotes from three moving companies and book one', [1]],
          ['Make an address-change and admin checklist'],
          ['Plan the first week in the new place', [2], true],
        ],
      },
      {
        why: 'Logistics, belongings and paperwork are separate work streams that meet on moving day.',
        steps: [
          ['Plan the logistics of {move}: dates, transport and storage'],
          ['Prepare the belongings: declutter, buy supplies and pack', [0]],
          ['Handle the paperwork: lease, deposits, utilities and address changes'],
          ['Run moving day and settle in', [0, 1, 2]],
        ],
      },
    ],
  },
  {
    id: 'fitness',
    match:
      /\b(fitness|fit|marathon|half-marathon|run(ning)?|5k|10k|gym|weight|muscle|workouts?|exercise|health\w*|diet|nutrition|sleep|yoga|triathlon|strength|stamina)\b/i,
    aspects: [
      aspect('target', /target|baseline|milestone|health check|limits/i),
      aspect('training', /training|workout|program|exercise|approach/i),
      aspect('nutrition', /nutrition|meal|diet|grocery|food|hydration/i),
      aspect('recovery', /recovery|rest|sleep|injury/i),
      aspect('tracking', /track|progress|log|check-in|measure/i),
    ],
    variants: [
      {
        why: 'A measurable target and baseline, then training, nutrition and recovery plans that serve it, then tracking to adjust.',
        steps: [
          ['Set a measurable target for {act} and record a baseline'],
          ['Design a weekly training plan that builds up gradually', [0]],
          ['Plan meals and nutrition to support the training', [0]],
          ['Plan recovery: sleep, rest days and injury prevention', [1], true],
          ['Track workouts weekly and adjust the plan', [1]],
        ],
      },
      {
        why: 'Safety first, then the method and a progressive program, supported by habits and regular check-ins.',
        steps: [
          ['Get a health check and agree safe limits for {act}'],
          ['Choose the training approach and the equipment', [0]],
          ['Write a 12-week progressive program', [1]],
          ['Build supporting habits: sleep, hydration and a simple meal plan'],
          ['Schedule check-ins to measure progress and adapt', [2], true],
        ],
      },
      {
        why: 'Milestones make the goal concrete; schedule, food and a log make it happen week after week.',
        steps: [
          ['Break {act} into monthly milestones'],
          ['Create a workout schedule that fits the current week', [0]],
          ['Prepare a grocery list and meal plan for training days'],
          ['Set up a progress log with a reward for each milestone', [0]],
        ],
      },
    ],
  },
  {
    id: 'research',
    match:
      /\b(research|investigat\w*|analy[sz]\w*|survey|evaluat\w*|literature|find out|assess\w*|study of|report on|compare)\b/i,
    aspects: [
      aspect('question', /question|scope|known|hypothes/i),
      aspect('sources', /source|evidence|experts?|papers|data/i),
      aspect('method', /method|criteria|design the study/i),
      aspect('analysis', /analy|synthes|compare|findings/i),
      aspect('report', /report|summary|present|conclusion|recommend/i),
    ],
    variants: [
      {
        why: 'Question, sources and method, then analysis and a written report: the standard research arc.',
        steps: [
          ['Frame the research question and scope for {the}'],
          ['Collect sources on it: papers, data sets, articles and expert views', [0]],
          ['Define the criteria or method for analysing the material', [0]],
          ['Analyse the sources and compare the findings', [1, 2]],
          ['Write a report of the findings with recommendations', [3]],
        ],
      },
      {
        why: 'Start from what is known, chase the open questions, and present a synthesis.',
        steps: [
          ['List what is already known about {obj} and the open questions'],
          ['Gather evidence for each open question', [0]],
          ['Synthesise the evidence into key findings', [1]],
          ['Present the findings in a summary with a comparison table', [2]],
        ],
      },
      {
        why: 'An empirical study: sources and experts, a designed method, data, conclusions.',
        steps: [
          ['Identify the best sources and experts on {obj}'],
          ['Design the study: method, sample and timeline', [0]],
          ['Run the study and record the data', [1]],
          ['Analyse the data and write the conclusions', [2]],
        ],
      },
    ],
  },
]
