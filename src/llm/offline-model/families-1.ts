/**
 * Goal families, part 1: travel, learning, software, events, writing.
 * See catalog-types.ts for the format.
 */
import { aspect, type Family } from './catalog-types'

export const FAMILIES_1: readonly Family[] = [
  {
    id: 'travel',
    match:
      /\b(trip|travel\w*|vacation|holiday|journey|itinerary|tour|honeymoon|getaway|backpack\w*|road ?trip|visit(ing)?)\b/i,
    aspects: [
      aspect('budget', /budget|cost|money|spend/i),
      aspect('transport', /flight|train|transport|rail|transfer|car|pass/i),
      aspect('lodging', /accommodation|hotel|stay|lodging|ryokan|hostel|nights?/i),
      aspect('itinerary', /itinerary|route|day-by-day|stops?|regions?|cities|experiences/i),
      aspect('preparation', /pack|document|passport|visa|insurance|entry/i),
    ],
    variants: [
      {
        why: 'Decisions in the order they constrain each other: budget and dates, then the route, then the bookings and the daily plan that depend on the route, with preparation alongside.',
        steps: [
          ['Set the budget, travel dates and must-see priorities for {the}'],
          [
            'Choose the route through {place}: which cities or regions, in what order, and how many nights in each',
            [0],
          ],
          ['Book flights to and from {place} and the main transport between stops', [1]],
          ['Book accommodation for every night of the route', [1]],
          [
            'Write a day-by-day itinerary with activities, reservations and rest time',
            [1, 3],
            true,
          ],
          ['Prepare documents, insurance, money and a packing list', [0], true],
        ],
      },
      {
        why: 'Separates the shape of the trip from its logistics and its experiences, so transport and lodging can be booked once the places are chosen.',
        steps: [
          ['Decide the shape of {the}: dates, budget ceiling, pace and who is coming'],
          ["Research {place}'s regions, seasons and events and shortlist the places to visit", [0]],
          [
            'Sort out transport: international flights, rail or car passes and airport transfers',
            [1],
          ],
          ['Reserve places to stay close to the transport hubs of each stop', [1]],
          ['Plan the experiences at each stop: food, sights and day trips', [1], true],
        ],
      },
      {
        why: 'Before, during and after booking: requirements and money first, then the itinerary, then the bookings it implies, then getting ready to leave.',
        steps: [
          ['Check entry requirements, health advice and the best season to visit {place}'],
          ['Draft a budget covering transport, lodging, food, activities and a buffer'],
          ['Plan the itinerary: stops, nights per stop and the key activity of each day', [0]],
          ['Make the bookings: flights, stays and timed tickets', [1, 2]],
          ['Get ready to leave: packing list, phone and money setup, home arrangements', [3], true],
        ],
      },
    ],
  },
  {
    id: 'learning',
    match:
      /\b(learn\w*|master|study|fluent|get better at|improve my|course|skills?|practi[cs]e|language|become an?)\b/i,
    aspects: [
      aspect('goal and level', /level|baseline|assess|success|milestone|goal/i),
      aspect('resources', /resource|course|book|teacher|material|tutor|community/i),
      aspect('schedule', /schedule|routine|weekly|daily|plan/i),
      aspect('practice', /practi|exercise|drill|project|apply/i),
      aspect('feedback', /feedback|review|test|progress|critique/i),
    ],
    variants: [
      {
        why: 'Goal and baseline first, then resources and a schedule, then practice and a project, with regular reviews to adjust.',
        steps: [
          ['Define what success in {act} looks like and assess the current level'],
          [
            'Pick learning resources for {act}: one main course or book plus practice material',
            [0],
          ],
          ['Build a weekly study schedule with fixed practice slots', [0]],
          ['Work through the fundamentals of {act} with short daily exercises', [1, 2]],
          ['Do a small real-world project that puts {act} to use', [3], true],
          ['Review progress monthly against milestones and adjust the plan', [2], true],
        ],
      },
      {
        why: 'Breaks the skill into sub-skills, then sets up the three things that make practice work: a routine, feedback and milestones.',
        steps: [
          ['Break {act} into its core sub-skills and order them from basic to advanced'],
          ['Find a teacher, community or study partner who can give feedback on {act}'],
          ['Set up a daily practice routine of 30 to 45 minutes', [0]],
          ['Set three milestones with a concrete test for each', [0]],
        ],
      },
      {
        why: 'Resources, then a dated plan, then deliberate practice and a capstone that proves the skill.',
        steps: [
          ['Gather the best free and paid resources for {act}'],
          ['Write a 12-week learning plan with one topic per week', [0]],
          ['Practise deliberately: drills on weak spots, with feedback', [1]],
          ['Complete a capstone project in {act} and share it for critique', [2]],
        ],
      },
    ],
  },
  {
    id: 'software',
    match:
      /\b(app|application|website|web ?site|api|software|program|script|tool|bot|saas|game|extension|plugin|dashboard|backend|frontend|database|cli|library|service|platform|code|coding|implement\w*)\b/i,
    aspects: [
      aspect('requirements', /requirement|feature|scope|user|flows?|must-have/i),
      aspect('design', /design|architecture|data model|schema|stack|contract/i),
      aspect('implementation', /implement|build|prototype|backend|frontend|code/i),
      aspect('testing', /test|error handling|fix/i),
      aspect('release', /deploy|release|ci\b|integration|package|monitor|document/i),
    ],
    variants: [
      {
        why: 'The classic path: requirements, design, implementation, then tests, deployment and docs that all build on the implementation.',
        steps: [
          ['Write the requirements for {the}: users, core features and what is out of scope'],
          ['Design the architecture and data model and choose the stack', [0]],
          ['Implement the core features of {the}', [1]],
          ['Write automated tests for the core features', [2]],
          ['Set up deployment and continuous integration', [2], true],
          ['Write user and developer documentation', [2], true],
        ],
      },
      {
        why: 'Starts from the user flows, fixes the contract between frontend and backend, builds both sides in parallel, then tests end to end.',
        steps: [
          ['Sketch the main user flows and screens of {the}'],
          ['Define the data model and the API contract', [0]],
          ['Build the backend: storage, API endpoints and validation', [1]],
          ['Build the frontend on top of the API', [1]],
          ['Test end to end and fix what breaks', [2, 3]],
        ],
      },
      {
        why: 'Ship small: a must-have list, a working prototype, hardening, then a monitored first release.',
        steps: [
          ['List the must-have features of {the} for a first release'],
          ['Build a minimal working prototype', [0]],
          ['Add error handling, tests and logging to the prototype', [1]],
          ['Package, deploy and monitor the first release', [2]],
        ],
      },
    ],
  },
  {
    id: 'event',
    match:
      /\b(party|wedding|birthday|event|conference|meetup|celebration|reunion|festival|gala|dinner|workshop|shower|anniversary|hackathon|ceremony|fundraiser)\b/i,
    aspects: [
      aspect('basics', /date|budget|guest count|theme|format|size/i),
      aspect('venue', /venue|location|space/i),
      aspect('guests', /guest|invit|rsvp/i),
      aspect('food', /food|catering|drinks|menu|cake/i),
      aspect('the day', /run-of-show|schedule|timeline|setup|day itself|agenda/i),
    ],
    variants: [
      {
        why: 'Date, budget and size decide everything else; the venue comes next, and the day-of timeline pulls the pieces together.',
        steps: [
          ['Set the date, budget and guest count for {the}'],
          ['Find and book a venue that fits the guest count and budget', [0]],
          ['Send invitations and track RSVPs', [0, 1]],
          ['Arrange food, drinks and the cake or catering', [0]],
          ['Plan decorations, music and activities', [1], true],
          ['Write a run-of-show timeline for the day with who does what', [1, 3]],
        ],
      },
      {
        why: 'Concept first, then the guest list and the suppliers, then the practical checklist and the schedule of the day.',
        steps: [
          ['Decide the theme, format and size of {the}'],
          ['Draw up the guest list and send the invitations', [0]],
          ['Book the venue and suppliers: catering, entertainment, rentals', [0]],
          ['Prepare a shopping and setup checklist', [2]],
          ['Plan the schedule of the day and the clean-up', [2], true],
        ],
      },
      {
        why: 'Money first, then place and date, then everything guests experience, then running the day itself.',
        steps: [
          ['Draft the budget for {the} with a line for every cost'],
          ['Choose the venue and the date', [0]],
          ['Organise the guest experience: invitations, food and entertainment', [1]],
          ['Coordinate the day itself: setup, timeline, helpers and wrap-up', [2]],
        ],
      },
    ],
  },
  {
    id: 'writing',
    match:
      /\b(write|writing|book|novel|essay|article|blog|paper|thesis|story|newsletter|speech|screenplay|memoir|post|manuscript|poem)\b/i,
    aspects: [
      aspect('purpose', /purpose|audience|message|angle/i),
      aspect('research', /research|sources|material|notes/i),
      aspect('structure', /outline|structure|sections?/i),
      aspect('drafting', /draft|write/i),
      aspect('editing', /revise|edit|proofread|feedback|publish/i),
    ],
    variants: [
      {
        why: 'Purpose and audience, research, outline, draft, revision and publication: each stage feeds the next.',
        steps: [
          ['Define the purpose, audience and key message of {the}'],
          ['Collect sources, examples and notes for {the}', [0]],
          ['Write a detailed outline', [0, 1]],
          ['Write the first draft following the outline', [2]],
          ['Revise the draft for structure, clarity and style', [3]],
          ['Prepare it for publication: title, formatting and where to publish', [4], true],
        ],
      },
      {
        why: 'Find the angle, plan the sections, draft them, and let real readers improve the result.',
        steps: [
          ['Brainstorm angles for {the} and pick the strongest'],
          ['Outline it section by section', [0]],
          ['Draft each section', [1]],
          ['Get feedback from two readers and revise', [2]],
        ],
      },
      {
        why: 'Material first, then structure and a schedule, then the draft, then the polish.',
        steps: [
          ['Gather the research and material {the} needs'],
          ['Plan the structure and a writing schedule with word-count targets', [0]],
          ['Write the full draft', [1]],
          ['Edit, proofread and publish', [2]],
        ],
      },
    ],
  },
]
