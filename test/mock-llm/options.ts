/**
 * The mock LLM server's command line (`npm run mock-llm`): one table
 * (src/cli/options.ts), from which parsing, --help and the one-line errors
 * come, and --help's list of personas, each with what it does (personas.ts).
 *
 * Pure: argv in, the server's settings out; main.ts prints and exits.
 */
import {
  badValue,
  flag,
  formatOptions,
  formatRows,
  option,
  parseOptions,
  port,
  text,
  type Parse,
} from '../../src/cli/options'
import { CAPABILITIES, type Capability } from '../../src/llm/types'
import type { MockLlmServerInit } from './behaviour'
import { DEFAULT_BEHAVIOUR } from './behaviour'
import { PERSONA_HEADER, PERSONA_MODEL_PREFIX, PERSONA_NAMES, PERSONAS } from './personas'

/** The port the docs and e2e configs use by default. */
export const DEFAULT_PORT = 8787
/** Benchmarks want calls as slow as a real LLM's; about a second is typical for short replies. */
export const DEFAULT_CLI_LATENCY_MS = 1000
/** shape mode: a split has 2 to 6 subgoals (the protocol's bounds) */
const MIN_BRANCHING = 2
const MAX_BRANCHING = 6

/** One of a few words. */
function oneOf<T extends string>(words: readonly T[]): Parse<T> {
  return (raw, name) => {
    if (!(words as readonly string[]).includes(raw))
      throw badValue(name, `one of ${words.join(', ')}`, raw)
    return raw as T
  }
}

/** A number within [min, max]; `above` excludes min itself. */
function number(min: number, max = Infinity, above = false): Parse<number> {
  return (raw, name) => {
    const n = Number(raw)
    const fits = raw.trim() !== '' && Number.isFinite(n) && n <= max && (above ? n > min : n >= min)
    if (!fits) {
      const range =
        max === Infinity ? `${above ? 'above' : 'at least'} ${min}` : `between ${min} and ${max}`
      throw badValue(name, `a number ${range}`, raw)
    }
    return n
  }
}

const keys: Parse<string[]> = (raw, name) => {
  const list = raw
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
  if (list.length === 0) throw badValue(name, 'keys separated by commas', raw)
  return list
}

export const MOCK_OPTIONS = {
  port: option({
    arg: 'N',
    help: 'port to listen on; 0 picks a free one',
    parse: port,
    default: DEFAULT_PORT,
  }),
  host: option({ arg: 'H', help: 'address to bind', parse: text, default: '127.0.0.1' }),
  'latency-ms': option({
    arg: 'N',
    help: 'delay before every answer, in ms (a realistic LLM call)',
    parse: number(0),
    default: DEFAULT_CLI_LATENCY_MS,
  }),
  mode: option({
    arg: 'M',
    help: 'offline: answers from the offline model; shape: a fixed tree',
    parse: oneOf(['offline', 'shape'] as const),
    default: 'offline' as const,
  }),
  branching: option({
    arg: 'N',
    help: `shape mode: subgoals per decomposition, ${MIN_BRANCHING}..${MAX_BRANCHING}`,
    parse: number(MIN_BRANCHING, MAX_BRANCHING),
    default: DEFAULT_BEHAVIOUR.branching,
  }),
  score: option({
    arg: 'X',
    help: 'shape mode: the score every proposal gets, 0..1',
    parse: number(0, 1),
    default: DEFAULT_BEHAVIOUR.score,
  }),
  scores: option({
    arg: 'S',
    help: 'shape mode: fixed (every score is --score) or realistic (spread scores, some under 0.6, scorers that disagree)',
    parse: oneOf(['fixed', 'realistic'] as const),
    default: DEFAULT_BEHAVIOUR.scores,
  }),
  capability: option({
    arg: 'C',
    help: `shape mode: the capability every leaf needs (${CAPABILITIES.join(', ')})`,
    parse: oneOf<Capability>(CAPABILITIES),
    default: DEFAULT_BEHAVIOUR.capability,
  }),
  keys: option({
    arg: 'A,B',
    help: 'the API keys it accepts (401 for any other)',
    parse: keys,
    shownDefault: 'accept any key, even none',
  }),
  'retry-after': option({
    arg: 'S',
    help: 'retry-after seconds on simulated 429s',
    parse: number(0),
    default: DEFAULT_BEHAVIOUR.retryAfterSeconds,
  }),
  structured: option({
    arg: 'M',
    help: 'follow, ignore or reject requests for structured output (ignore and reject act like local servers without it)',
    parse: oneOf(['follow', 'ignore', 'reject'] as const),
    default: DEFAULT_BEHAVIOUR.structuredOutput,
  }),
  tools: option({
    arg: 'M',
    help: 'use, ignore or reject requests that offer tools (run_javascript, web search); reject answers 400 naming them, like a server without tool calling',
    parse: oneOf(['use', 'ignore', 'reject'] as const),
    default: DEFAULT_BEHAVIOUR.tools,
  }),
  persona: option({
    arg: 'NAME',
    help: `serve every request with a real model's habits (Personas, below); its latency replaces --latency-ms. A request may pick its own: header ${PERSONA_HEADER}, or model "${PERSONA_MODEL_PREFIX}NAME"`,
    parse: oneOf(PERSONA_NAMES),
    shownDefault: 'none',
  }),
  seed: option({
    arg: 'N',
    help: "seeds the personas' draws: the same seed, the same habits",
    parse: number(-Infinity),
    default: DEFAULT_BEHAVIOUR.seed,
  }),
  'time-scale': option({
    arg: 'X',
    help: "multiplies the personas' latencies and rate-limit windows (0.1 for a quick test)",
    parse: number(0, Infinity, true),
    default: DEFAULT_BEHAVIOUR.timeScale,
  }),
  quiet: flag('do not log each request'),
  'requests-log': option({
    arg: 'FILE',
    help: 'append each answered request to FILE as a JSON line (path, api, task, status and the key it carried), for tests that run it elsewhere',
    parse: text,
    shownDefault: 'none',
  }),
}

export const MOCK_USAGE = `Usage: npm run mock-llm -- [options]

A mock LLM server on loopback speaking the providers' real wire formats
(Anthropic Messages, OpenAI Chat Completions and Responses), for end-to-end
runs and benchmarks. It answers from the offline model, or with a fixed
tree, and can answer as a real model does (a persona).

Options:
${formatOptions(MOCK_OPTIONS)}

Personas (--persona NAME):
${formatRows(PERSONA_NAMES.map((name) => [name, PERSONAS[name].summary] as const))}

Examples:
  npm run mock-llm -- --port 8787 --latency-ms 1000 --mode shape --branching 3
  npm run mock-llm -- --persona rate-limited --quiet
  npm run mock-llm -- --persona think --time-scale 0.1 --port 0`

/** What main.ts starts: the server's settings, and its own. */
export interface MockCommand {
  server: MockLlmServerInit
  quiet: boolean
  requestsLog: string | undefined
}

/** Parses argv (without node and the script); throws a UsageError on a mistake. */
export function parseMockArgs(
  argv: string[],
): { kind: 'help' } | { kind: 'run'; command: MockCommand } {
  const parsed = parseOptions(MOCK_OPTIONS, argv)
  if (parsed.kind === 'help') return parsed
  const v = parsed.values
  return {
    kind: 'run',
    command: {
      server: {
        ...(v.persona === undefined ? {} : { persona: v.persona }),
        seed: v.seed,
        timeScale: v['time-scale'],
        port: v.port,
        host: v.host,
        latencyMs: v['latency-ms'],
        mode: v.mode,
        branching: v.branching,
        score: v.score,
        scores: v.scores,
        capability: v.capability,
        keys: v.keys,
        retryAfterSeconds: v['retry-after'],
        structuredOutput: v.structured,
        tools: v.tools,
      },
      quiet: v.quiet,
      requestsLog: v['requests-log'],
    },
  }
}
