/**
 * The mock LLM server's types: how it behaves (MockBehaviour, with its
 * defaults), what it logs per request, and what a test holds (server.ts
 * creates it).
 */
import type { Capability, LlmTaskKind } from '../../src/llm/types'
import type { MockMode } from './answers'
import type { RateLimitSignal } from './habits'
import type { PersonaName } from './personas'
import { DEFAULT_SEARCH_RESULTS, type ToolApi } from './tools'
import type { ParsedRequest } from './wire'

export type FailureKind = 'rate-limit' | 'server-error' | 'invalid-json' | 'schema-violation'

export interface MockBehaviour {
  /** 'offline': answers from the offline model; 'shape': a fixed tree (see answers.ts) */
  mode: MockMode
  branching: number
  score: number
  /** shape mode: 'fixed' (every score is `score`) or 'realistic' (see answers.ts) */
  scores: 'fixed' | 'realistic'
  capability: Capability
  /** delay before every answer, in ms */
  latencyMs: number
  /** accepted API keys; undefined accepts anything, even no key (like a local server) */
  keys: readonly string[] | undefined
  /** the retry-after header on simulated 429s, in seconds */
  retryAfterSeconds: number
  /**
   * How the "model" treats requests for structured output (response_format,
   * output_config, forced tools): 'follow' answers in kind; 'ignore' answers
   * in chatty text anyway, like many local models; 'reject' answers 400, like
   * servers that do not support the parameter.
   */
  structuredOutput: 'follow' | 'ignore' | 'reject'
  /**
   * Requests that offer tools (run_javascript, web search): 'use' follows the
   * script (tools.ts); 'ignore' answers in text as if none were offered;
   * 'reject' answers 400 naming the tools, like a server without tool calling.
   */
  tools: 'use' | 'ignore' | 'reject'
  /** the program the "model" runs with run_javascript (default: the offline model's for the task) */
  toolCode: string | undefined
  /** run_javascript calls before it answers (a large number: it never stops by itself) */
  codeRounds: number
  /** what a web search finds */
  searchResults: readonly { title: string; url: string }[]
  /** the persona serving requests that do not name one (personas.ts); undefined: none */
  persona: PersonaName | undefined
  /** seeds every persona draw: the same seed and requests give the same habits */
  seed: number
  /**
   * multiplies personas' latencies and rate-limit windows (given at
   * real-world scale): 1 for a bench, a small fraction for CI
   */
  timeScale: number
}

export interface MockLlmServerInit extends Partial<MockBehaviour> {
  /** 0 (default) picks a free port */
  port?: number
  /** default 127.0.0.1: tests use loopback only */
  host?: string
}

export interface MockRequestLog {
  at: number
  method: string
  path: string
  /** lower-case header names; includes the key headers so tests can see which keys arrived */
  headers: Record<string, string>
  body: unknown
  api?: ToolApi
  taskKind?: LlmTaskKind
  /**
   * what this reply did with tools: called run_javascript, searched, called
   * a person's own (MCP) tools on cue, or answered after tool results
   */
  tool?: 'code-call' | 'search' | 'answer-after-code' | 'function-call' | 'answer-after-tools'
  /** how the request asked for JSON, hence how it was answered */
  form?: ParsedRequest['form']
  status: number
  failure?: FailureKind
  /** the response body as sent (a streamed reply: its server-sent events), so tests can compare it with what a tab shows */
  reply?: string
  /** the model's reply text (a streamed reply's text deltas joined), when it answered in text */
  replyText?: string
  /** the reply was streamed (the request said `stream: true`) */
  streamed?: boolean
  /** the persona that served it */
  persona?: PersonaName
  /** which attempt at its task (by its key) this was, for the persona: 0 for the first */
  attempt?: number
  /** the persona cut the reply at the token limit */
  cut?: boolean
  /** a persona's 429: the wait its back-off signal gave, in ms, and which signal */
  waitMs?: number
  signal?: RateLimitSignal
  /** the correct answer, before any persona's habits (tests compare results with it) */
  answer?: unknown
  /** a hash of the task the request was for: equal for every attempt and peer at the same task */
  taskHash?: number
}

export interface MockLlmServer {
  /** http://host:port (no /v1): provider base URLs are `${url}/v1` */
  url: string
  port: number
  requests: MockRequestLog[]
  behaviour(): MockBehaviour
  setBehaviour(patch: Partial<MockBehaviour>): void
  /**
   * Forget how often each prompt was seen, so a second run of the same
   * workload (a bench's other side) gets the same answers in the same order,
   * and the same persona habits and latencies.
   */
  resetSeeds(): void
  /** make the next n LLM requests fail this way (queued after any earlier failNext) */
  failNext(n: number, kind: FailureKind): void
  /**
   * Holds every LLM answer (after its latency) until the returned release is
   * called: a test can act while a call is surely still running, however
   * slow the machine is.
   */
  hold(): () => void
  /**
   * Holds every streamed answer halfway (half its events sent) until the
   * returned release is called: a test sees text arrive before the call ends.
   */
  holdStream(): () => void
  close(): Promise<void>
}

export const DEFAULT_BEHAVIOUR: MockBehaviour = {
  mode: 'offline',
  // The prototype's usual fan-out; small enough for quick benchmark trees.
  branching: 3,
  // Above the 0.6 acceptance threshold, so shape-mode proposals are accepted at once.
  score: 0.8,
  scores: 'fixed',
  capability: 'can_write_text',
  latencyMs: 0,
  keys: undefined,
  // Short, so tests that exercise it do not wait long; real providers say 1 to 60 s.
  retryAfterSeconds: 1,
  structuredOutput: 'follow',
  tools: 'use',
  toolCode: undefined,
  codeRounds: 1,
  searchResults: DEFAULT_SEARCH_RESULTS,
  persona: undefined,
  seed: 1,
  timeScale: 1,
}
