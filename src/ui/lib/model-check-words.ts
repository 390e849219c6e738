/**
 * What the model check (src/llm/model-probe.ts) found, in words: a short
 * label for a badge, a headline and what to do. Pure, so every case is
 * tested; the store (model-check-state.svelte.ts) holds the state.
 */
import { addressSpaceOf } from '../../llm/address-space'
import {
  PROBE_TIMEOUT_MS,
  type PageContext,
  type ProbeProblem,
  type ProbeResult,
} from '../../llm/model-probe'
import type { LlmErrorKind } from '../../llm/types'
import type { ModelConfig, ModelVerdict } from '../../runtime/types'

export type ModelCheckState =
  /** no check has run for the settings in use (none saved, or not yet) */
  | { state: 'unchecked' }
  /** the built-in offline model: nothing to check */
  | { state: 'offline' }
  | { state: 'checking'; config: ModelConfig }
  /** past PROBE_SLOW_MS without an answer; serverUp: its model list answered meanwhile */
  | { state: 'slow'; config: ModelConfig; serverUp: boolean }
  | (ProbeResult & { config: ModelConfig })

export type CheckTone = 'good' | 'busy' | 'bad' | 'neutral'

export interface CheckWords {
  tone: CheckTone
  /** one or two words, for a badge: "works", "checking…", "wrong key" */
  short: string
  headline: string
  advice?: string
}

const SHORT: Record<ProbeProblem, string> = {
  auth: 'wrong key',
  'unknown-model': 'unknown model',
  'not-found': 'wrong URL',
  'not-llm': 'not an LLM',
  http: 'server error',
  cors: 'blocked by CORS',
  'local-network-blocked': 'blocked by the browser',
  'local-network-permission': 'needs permission',
  'mixed-content': 'blocked by the browser',
  unreachable: 'unreachable',
  'unreachable-or-blocked': 'unreachable',
  timeout: 'no answer',
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

const LIMIT = `${PROBE_TIMEOUT_MS / 60_000} min`

/** This app's own address on the computer that runs it: loopback, on the port the page came from. */
export function loopbackApp(pageOrigin: string): string {
  const page = new URL(pageOrigin)
  return `${page.protocol}//127.0.0.1${page.port ? `:${page.port}` : ''}/`
}

/** What to do when the browser will not let this page reach the server. */
function elsewhere(config: ModelConfig, page: { origin: string }): string {
  const base = config.baseUrl ?? 'URL'
  return [
    'open the room’s link over https (whoever runs the app starts it with `npm start -- --lan --https`) and allow local network access when the browser asks',
    `run the headless agent on the computer with the model server (\`npm run agent -- --invite '<link>' --provider ${config.provider} --base-url ${base} --model ${config.model}\`)`,
    `or, on the computer that runs the app, open it as ${loopbackApp(page.origin)} rather than by its network address`,
  ].join('; ')
}

function problemWords(
  result: Extract<ProbeResult, { state: 'failed' }>,
  config: ModelConfig,
  page: PageContext & { origin: string },
): CheckWords {
  const { origin } = result
  const status = result.status === undefined ? '' : ` (${result.status})`
  const detail = result.detail ? `: ${result.detail}` : ''
  const local = config.provider === 'openai-compatible'
  const words = (headline: string, advice?: string): CheckWords => ({
    tone: 'bad',
    short: SHORT[result.problem],
    headline,
    ...(advice === undefined ? {} : { advice }),
  })
  switch (result.problem) {
    case 'auth':
      return words(
        `Wrong API key: ${origin} rejected it${status}${detail}`,
        'Copy the key again from your provider’s console, or switch to the built-in offline model.',
      )
    case 'unknown-model':
      return words(
        `Unknown model: ${origin} has no model “${config.model}”${status}${detail}`,
        local
          ? 'Pick a model the server has (Ollama: `ollama list`, or `ollama pull` it first).'
          : 'Check the model name: pick one from the list, or one your key has access to.',
      )
    case 'not-found':
      return words(
        `Nothing at ${config.baseUrl ?? origin}${status}${detail}`,
        'Check the base URL: OpenAI-compatible servers usually end in /v1.',
      )
    case 'not-llm':
      return words(
        `${origin} answered, but not as an LLM API would`,
        'Check the base URL: it may point at another program (this app’s own address, for one).',
      )
    case 'http':
      return words(
        `${origin} answered with an error${status}${detail}`,
        'The server had a problem; try again, or look at its log.',
      )
    case 'cors':
      return words(
        `${origin} is running but does not allow requests from this page (CORS)`,
        `Let it accept ${page.origin}: Ollama reads OLLAMA_ORIGINS (e.g. OLLAMA_ORIGINS=${page.origin} ollama serve); in LM Studio turn on “Enable CORS” in the server settings.`,
      )
    case 'local-network-blocked':
      return words(
        `This browser blocks this page from reaching ${origin} (Local Network Access)`,
        `Chrome and other Chromium browsers (version 142 on) do not let a plain-http page on a network address (${page.origin}) call ${addressSpaceOf(new URL(origin).hostname) === 'loopback' ? 'this computer’s own addresses (localhost, 127.0.0.1)' : 'addresses of your local network'}. Instead: ${elsewhere(config, page)}.`,
      )
    case 'local-network-permission':
      return words(
        `The browser did not let this page reach ${origin}: local network access is not allowed`,
        'Allow “local network access” for this site (the browser’s prompt, or the site settings by the address bar), then press “Use this model” again.',
      )
    case 'mixed-content':
      return words(
        `This https page may not call the plain-http server ${origin} (mixed content)`,
        'Serve the model over https, or use a server on this computer (http://localhost works from https pages).',
      )
    case 'unreachable-or-blocked':
      return words(
        `Nothing answers at ${origin} from this page`,
        `Check that the server is running. If it is, this browser may be refusing the call: Chromium browsers’ Local Network Access keeps a plain-http page from another machine (${page.origin}) away from this computer’s own addresses (Chrome 142 on does so for pages from public addresses, and plans to for pages from your network too). Instead: ${elsewhere(config, page)}.`,
      )
    case 'unreachable': {
      const page_ = addressSpaceOf(page.hostname)
      const maybeLna =
        !page.secure &&
        page_ !== 'loopback' &&
        addressSpaceOf(new URL(origin).hostname) === 'unknown'
          ? ` If ${new URL(origin).hostname} is a machine on your network, this browser may also be blocking the call from a plain-http page (Local Network Access): try the app over https.`
          : ''
      return words(
        `Nothing answers at ${origin}${detail ? ` (${result.detail})` : ''}`,
        `Check the base URL and that the server is running${local ? ' (Ollama: `ollama serve`)' : ''}.${maybeLna}`,
      )
    }
    case 'timeout':
      return words(
        result.serverUp
          ? `${origin} is up, but the model did not answer within ${LIMIT}`
          : `No answer from ${origin} within ${LIMIT}`,
        result.serverUp
          ? 'A large model can take long to load; look at the server’s log, or pick a smaller model.'
          : 'Check the base URL and that the server is running and reachable from this computer.',
      )
  }
}

/** The check's state in words; `page` is where this tab runs. */
export function describeCheck(
  check: ModelCheckState,
  page: PageContext & { origin: string },
): CheckWords {
  switch (check.state) {
    case 'unchecked':
      return { tone: 'neutral', short: 'not checked', headline: 'Not checked yet.' }
    case 'offline':
      return {
        tone: 'neutral',
        short: 'offline model',
        headline: 'The built-in offline model needs no check.',
      }
    case 'checking':
      return {
        tone: 'busy',
        short: 'checking…',
        headline: 'Checking the model with one short call…',
      }
    case 'slow':
      return check.serverUp
        ? {
            tone: 'busy',
            short: 'loading…',
            headline:
              'The server is answering slowly; a local server may be loading the model (the first call can take minutes)…',
            advice: `Still waiting, up to ${LIMIT}.`,
          }
        : {
            tone: 'busy',
            short: 'waiting…',
            headline: 'No answer yet; the server may be busy or loading the model…',
            advice: `Still waiting, up to ${LIMIT}.`,
          }
    case 'ok':
      return { tone: 'good', short: 'works', headline: `Works (answered in ${seconds(check.ms)}).` }
    case 'rate-limited':
      return {
        tone: 'busy',
        short: 'rate-limited',
        headline: `The key works, but the provider is rate-limiting it now: ${check.detail}`,
        advice: 'This role waits and retries by itself.',
      }
    case 'failed':
      return problemWords(check, check.config, page)
  }
}

/**
 * What the core is told of a check (roles/model-health.ts): works (a 429
 * says the key works), cannot work (and why, in the check's words), or
 * nothing yet. A server error says nothing of the settings: no verdict.
 */
export function checkVerdict(
  check: ModelCheckState,
  page: PageContext & { origin: string },
): ModelVerdict | null {
  if (check.state === 'ok' || check.state === 'rate-limited') return { ok: true }
  if (check.state !== 'failed' || check.problem === 'http') return null
  return {
    ok: false,
    kind: VERDICT_KIND[check.problem],
    error: describeCheck(check, page).headline,
  }
}

const VERDICT_KIND: Record<Exclude<ProbeProblem, 'http'>, LlmErrorKind> = {
  auth: 'auth',
  'unknown-model': 'not-found',
  'not-found': 'not-found',
  'not-llm': 'not-found',
  cors: 'unreachable',
  'local-network-blocked': 'unreachable',
  'local-network-permission': 'unreachable',
  'mixed-content': 'unreachable',
  unreachable: 'unreachable',
  'unreachable-or-blocked': 'unreachable',
  timeout: 'unreachable',
}
