/**
 * The programs the offline placeholder runs for a code leaf. Where the
 * leaf's words name a computation it can do plainly (prime numbers, a sum
 * over a range, numbers it lists to add up, average, sort or count) the
 * program does exactly that; otherwise it is a small program
 * about the leaf's own words, and says so. A redo's note is read first, so
 * "only the first 10" changes the count.
 */
import { clause } from './words'

export interface Program {
  /** what the program does, in words, for the answer */
  does: string
  /** true when it does the computation the leaf names */
  computes: boolean
  code: string
}

/** Counts and ranges stay small enough to run well inside the sandbox's time limit. */
const MAX_PRIMES = 500
const MAX_RANGE = 1_000_000

const lit = (value: unknown): string => JSON.stringify(value)
const num = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number(text)

function primes(text: string): Program | undefined {
  if (!/\bprimes?\b|\bprime numbers?\b/i.test(text)) return undefined
  const sum = /\b(sum|total|add)\b/i.test(text)
  const count = num((/\bfirst\s+(\d+)/i.exec(text) ?? /\b(\d+)\s+primes?\b/i.exec(text))?.[1])
  const n = Math.min(MAX_PRIMES, count ?? 10)
  const label = `the first ${n} prime numbers`
  const why =
    count === undefined
      ? ' (the task names no count, so 10)'
      : count > n
        ? ` (at most ${MAX_PRIMES} run here)`
        : ''
  return {
    does: `lists ${label}${sum ? ' and adds them up' : ''}${why}`,
    computes: true,
    code: [
      'const primes = []',
      `for (let n = 2; primes.length < ${n}; n++) {`,
      '  if (primes.every((p) => n % p !== 0)) primes.push(n)',
      '}',
      `console.log(${lit(`${label}:`)}, primes.join(', '))`,
      ...(sum ? ["console.log('their sum:', primes.reduce((a, b) => a + b, 0))"] : []),
    ].join('\n'),
  }
}

function rangeSum(text: string): Program | undefined {
  const m =
    /\bsum of (?:the |all )?(squares|cubes|numbers|integers|whole numbers)?[^.]*?\bfrom\s+(-?\d+)\s+to\s+(-?\d+)/i.exec(
      text,
    )
  if (!m || Math.abs(Number(m[3]) - Number(m[2])) > MAX_RANGE) return undefined
  const power = m[1] === 'squares' ? 2 : m[1] === 'cubes' ? 3 : 1
  const what = `the ${m[1] ?? 'numbers'} from ${m[2]} to ${m[3]}`
  const label = `the sum of ${what}`
  return {
    does: `adds up ${what}`,
    computes: true,
    code: [
      'let sum = 0',
      `for (let i = ${m[2]}; i <= ${m[3]}; i++) sum += i ** ${power}`,
      `console.log(${lit(`${label}:`)}, sum)`,
    ].join('\n'),
  }
}

function numbers(text: string): Program | undefined {
  const list = (text.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number)
  const ops = [
    [/\b(sum|total|add)\b/i, 'sum', 'numbers.reduce((a, b) => a + b, 0)'],
    [/\b(average|mean)\b/i, 'average', 'numbers.reduce((a, b) => a + b, 0) / numbers.length'],
    [/\b(sort|order)\w*/i, 'sorted', "[...numbers].sort((a, b) => a - b).join(', ')"],
    [/\b(largest|max\w*|biggest)\b/i, 'largest', 'Math.max(...numbers)'],
    [/\b(smallest|min\w*)\b/i, 'smallest', 'Math.min(...numbers)'],
    [/\bcount\b/i, 'count', 'numbers.length'],
  ].filter(([re]) => (re as RegExp).test(text)) as [RegExp, string, string][]
  if (list.length < 2 || ops.length === 0) return undefined
  return {
    does: `takes the numbers the task names and prints their ${ops.map(([, name]) => name).join(', ')}`,
    computes: true,
    code: [
      `const numbers = ${lit(list)}`,
      ...ops.map(([, name, expr]) => `console.log(${lit(`${name}:`)}, ${expr})`),
    ].join('\n'),
  }
}

/** No computation it can do: a program about the leaf's own words, which says what it is. */
function aboutTheWords(leaf: string): Program {
  return {
    does: 'prints facts about the task’s own words (the offline model has no program for the task itself)',
    computes: false,
    code: [
      '// The offline placeholder cannot write a program for this task: it shows the sandbox at work on its words.',
      `const task = ${lit(leaf)}`,
      'const words = task.split(/\\s+/).filter(Boolean)',
      "console.log('task:', task)",
      "console.log('words:', words.length, '· letters:', task.replace(/[^\\p{L}]/gu, '').length)",
      "console.log('longest word:', words.reduce((a, b) => (b.length > a.length ? b : a), ''))",
    ].join('\n'),
  }
}

/** The program for a leaf (a redo's note first: what it names wins). */
export function programFor(leaf: string, note = ''): Program {
  const text = clause(note ? `${note}. ${leaf}` : leaf)
  for (const recognise of [primes, rangeSum, numbers]) {
    const found = recognise(text)
    if (found) return found
  }
  return aboutTheWords(clause(leaf))
}
