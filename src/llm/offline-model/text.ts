/**
 * Small text helpers for the offline model: words, a crude stemmer, the
 * verb and object of an imperative goal, places and durations. Crude on
 * purpose: they only need to make template output read naturally.
 */

export const STOPWORDS = new Set(
  (
    'a an the and or but of to in on at for from by with without into onto about over under ' +
    'my our your their his her its this that these those it we i you they me us them ' +
    'is are be been being was were will would should could can may might must do does did ' +
    'as so if then than up out off all any each every some such very just also more most ' +
    'how what which who whom when where why not no nor per via'
  ).split(' '),
)

/** Verbs so general that a goal's coverage should not hinge on them. */
export const GENERIC_VERBS = new Set(
  'plan make get do create have go start set find need want help try organise organize prepare'.split(
    ' ',
  ),
)

export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? []
}

/** Strip common English suffixes so "booking", "books" and "booked" compare equal. */
export function stem(word: string): string {
  const w = word.replace(/'s$/, '')
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'es', 'ed', 'ly', 's']) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) {
      const base = suffix === 'ies' ? `${w.slice(0, -3)}y` : w.slice(0, -suffix.length)
      return base.replace(/e$/, '')
    }
  }
  // "renovate" and "renovating" must meet at "renovat".
  return w.length > 4 ? w.replace(/e$/, '') : w
}

export function contentStems(text: string): Set<string> {
  return new Set(
    words(text)
      .filter((w) => !STOPWORDS.has(w) && w.length > 1)
      .map(stem),
  )
}

/** Imperative verbs the templates and checks recognise at the start of a step. */
export const ACTION_VERBS = new Set(
  (
    'add agree analyse analyze apply arrange assess book brainstorm break build buy calculate carry ' +
    'check choose clarify collect compare compile configure confirm contact coordinate create ' +
    'decide declutter define deploy design detail develop do draft draw estimate evaluate find ' +
    'finalise finalize fix frame gather get handle hire identify implement install interview ' +
    'launch learn list make map measure order organise organize outline pack package pick plan ' +
    'practise practice prepare present price print promote prototype publish purchase put ' +
    'record register rehearse reserve research review revise run schedule select send set ' +
    'setup shortlist sketch sort specify study summarise summarize test track train transfer ' +
    'unpack update validate verify visit work write'
  ).split(' '),
)

export function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1)
}

/** Lower-case the first letter unless the first word looks like a name or acronym. */
export function lowerFirst(text: string): string {
  const firstWord = text.split(/\s/)[0] ?? ''
  if (/^[A-Z][A-Z0-9]+$/.test(firstWord) || /^[A-Z][a-z]+[A-Z]/.test(firstWord)) return text
  return text.length === 0 ? text : text[0]!.toLowerCase() + text.slice(1)
}

export function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim()
  if (t.length <= max) return t
  const cut = t.slice(0, max - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[,;:.\s]+$/, '')}…`
}

/** A goal as a clause: trailing punctuation dropped. */
export function clause(text: string): string {
  return text.trim().replace(/[.!?;:\s]+$/, '')
}

export interface VerbSplit {
  /** the leading imperative verb, lower case, if there is one */
  verb: string | undefined
  /** the rest: the object of the goal ("a two-week trip to Japan") */
  rest: string
}

const DETERMINERS =
  /^(a|an|the|my|our|your|his|her|their|this|that|these|those|some|all|every|\d+)$/i
/** Endings that mark an English verb (renovate, organise, simplify, digitalize). */
const VERB_ENDING = /(ate|ise|ize|ify|en)$/i

/**
 * The leading imperative verb of a goal, if it has one: a known action verb,
 * a word with a verb ending, or any word followed by a determiner
 * ("Renovate the kitchen", "Paint my room").
 */
export function splitVerb(goal: string): VerbSplit {
  const text = clause(goal)
  const match = /^(\S+)\s+([\s\S]+)$/.exec(text)
  const head = match?.[1]?.toLowerCase().replace(/[^a-z-]/g, '') ?? ''
  const next = match?.[2]?.split(/\s+/)[0] ?? ''
  const isVerb =
    head !== '' &&
    !DETERMINERS.test(head) &&
    !STOPWORDS.has(head) &&
    (ACTION_VERBS.has(head) || VERB_ENDING.test(head) || DETERMINERS.test(next))
  if (match && isVerb) {
    // Phrasal verbs keep their particle: "sort out", "set up", "carry out".
    const particle = /^(out|up|down|through|together|off)\s+([\s\S]+)$/i.exec(match[2] ?? '')
    if (particle) return { verb: `${head} ${particle[1]?.toLowerCase()}`, rest: particle[2] ?? '' }
    return { verb: head, rest: match[2] ?? '' }
  }
  return { verb: undefined, rest: text }
}

/** "a two-week trip to Japan" -> "two-week trip to Japan" */
export function withoutArticle(text: string): string {
  return text.replace(/^(a|an|the|my|our|your)\s+/i, '')
}

/** The object of a goal: after the verb, cut before a second clause ("... and shortlist the places"). */
function objectText(goal: string): string {
  const { verb, rest } = splitVerb(goal)
  let text = rest
  const second = new RegExp(`\\s+and\\s+(${[...ACTION_VERBS].join('|')})\\b`, 'i').exec(text)
  if (second && second.index > 0) text = text.slice(0, second.index)
  // Without a verb the text starts the sentence, so its capital is not a name's.
  return verb ? text : lowerFirst(text)
}

/** The short object of a goal: no verb, no article, clipped, for use inside templates. */
export function objectOf(goal: string, max = 90): string {
  return clip(withoutArticle(objectText(goal)), max)
}

/** "the " + object, unless it already starts with a determiner or a name. */
export function theObject(goal: string, max = 90): string {
  const rest = clip(objectText(goal), max)
  if (/^(a|an)\s/i.test(rest)) return rest.replace(/^(a|an)\s/i, 'the ')
  if (/^(the|my|our|your|his|her|their)\s/i.test(rest)) return rest
  if (/^[A-Z]/.test(rest)) return rest
  return `the ${rest}`
}

const NOT_PLACES = new Set([
  'I',
  'A',
  'The',
  'My',
  'Our',
  'Learn',
  'Build',
  'Plan',
  'Write',
  'Get',
  'Make',
])

/** A capitalised place after to/in/around/across/through/visit, searched from the deepest goal up. */
export function placeOf(path: readonly string[]): string | undefined {
  const re =
    /\b(?:to|in|around|across|through|visit|visiting|explore|near)\s+((?:[A-Z][\w'-]+)(?:\s+(?:[A-Z][\w'-]+|de|del|la|of))*)/g
  for (let i = path.length - 1; i >= 0; i--) {
    for (const match of (path[i] ?? '').matchAll(re)) {
      const place = (match[1] ?? '').replace(/\s+(de|del|la|of)$/, '')
      if (!NOT_PLACES.has(place)) return place
    }
  }
  return undefined
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fourteen: 14,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
}

/** Days a goal speaks of ("two-week" = 14, "10-day" = 10, "weekend" = 2), from the deepest goal up. */
export function daysOf(path: readonly string[]): number | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const text = (path[i] ?? '').toLowerCase()
    if (/\bweekend\b/.test(text)) return 2
    const m = /\b(\d{1,3}|[a-z]+)[\s-](day|night|week|month)s?\b/.exec(text)
    if (!m) continue
    const n = /^\d+$/.test(m[1] ?? '') ? Number(m[1]) : NUMBER_WORDS[m[1] ?? '']
    if (n === undefined) continue
    const unit = m[2] === 'week' ? 7 : m[2] === 'month' ? 30 : 1
    return n * unit
  }
  return undefined
}

/**
 * The items of a list inside a goal: "Prepare documents, insurance, money and
 * a packing list" -> ["documents", "insurance", "money", "a packing list"].
 * Looks after a colon if there is one. Commas separate items; only the last
 * item's "and"/"or" is a separator, so "packing list, phone and money setup,
 * home arrangements" keeps "phone and money setup" whole (issue 43: titles
 * were cut at commas). Empty when there are fewer than 2.
 */
export function listItems(goal: string): string[] {
  const text = clause(goal)
  const colon = text.indexOf(':')
  const body = colon >= 0 ? text.slice(colon + 1) : splitVerb(text).rest
  let parts = body.split(/\s*[,;]\s*/)
  const last = parts.pop() ?? ''
  const conjunction = /^(?:and|or|plus)\s+/i.exec(last)
  if (conjunction) parts.push(last.slice(conjunction[0].length))
  else {
    // the final "B and C" of "A, B and C" (or of "B and C" alone)
    const m = /^(.*\S)\s+(?:and|or|plus)\s+(\S.*)$/i.exec(last)
    parts.push(...(m ? [m[1] ?? '', m[2] ?? ''] : [last]))
  }
  parts = parts.map((p) => p.trim()).filter((p) => p.length > 1)
  if (parts.length < 2 || parts.some((p) => p.split(/\s+/).length > 9)) return []
  return parts
}

export function camelCase(text: string, max = 4): string {
  const ws = words(text)
    .filter((w) => !STOPWORDS.has(w))
    .map((w) => w.replace(/[^a-z0-9]/g, ''))
    .filter((w) => w.length > 0)
    .slice(0, max)
  if (ws.length === 0) return 'runTask'
  const name = ws.map((w, i) => (i === 0 ? w : capitalise(w))).join('')
  return /^[0-9]/.test(name) ? `task${capitalise(name)}` : name
}

/** "play" -> "playing", "code" -> "coding", "run" -> "running", "lose" -> "losing". */
export function gerund(verb: string): string {
  const [first = '', ...particles] = verb.toLowerCase().split(/\s+/)
  const tail = particles.length > 0 ? ` ${particles.join(' ')}` : ''
  return `${gerundOfWord(first)}${tail}`
}

function gerundOfWord(v: string): string {
  if (v.endsWith('ing')) return v
  if (v.endsWith('ie')) return `${v.slice(0, -2)}ying`
  if (v.endsWith('e') && !v.endsWith('ee') && v.length > 2) return `${v.slice(0, -1)}ing`
  // Short consonant-vowel-consonant verbs double the last letter (run, swim, get, plan).
  if (/^[^aeiou]*[aeiou][bdgklmnprt]$/.test(v)) return `${v}${v.at(-1)}ing`
  return `${v}ing`
}

/** A goal as an activity: "Run a marathon" -> "running a marathon"; "Learn to cook" -> "cooking". */
export function activityPhrase(goal: string, max = 90): string {
  let text = clause(goal)
  const learn = /^(learn|master|study)\s+(how\s+)?(to\s+)/i.exec(text)
  if (learn) text = text.slice(learn[0].length)
  const { verb, rest } = splitVerb(text)
  const first = text.split(/\s+/)[0] ?? ''
  const common =
    /^(lose|gain|get|become|run|swim|cycle|speak|play|cook|read|drive|sing|dance|paint|draw|code|ride)$/i
  if (verb) return clip(`${gerund(verb)} ${rest}`, max)
  if (learn || common.test(first)) {
    const tail = text.slice(first.length)
    return clip(`${gerund(first)}${tail}`, max)
  }
  return clip(lowerFirst(withoutArticle(text)), max)
}
