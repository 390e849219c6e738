import { describe, expect, it } from 'vitest'
import type { ProbeProblem } from '../../llm/model-probe'
import type { ModelConfig } from '../../runtime/types'
import { checkVerdict, describeCheck, type ModelCheckState } from './model-check-words'

const OLLAMA: ModelConfig = {
  provider: 'openai-compatible',
  model: 'llama3.2',
  baseUrl: 'http://localhost:11434/v1',
}
const LAN_PAGE = {
  protocol: 'http:',
  hostname: '10.77.0.1',
  secure: false,
  origin: 'http://10.77.0.1:8080',
}
const HOME = {
  protocol: 'http:',
  hostname: '127.0.0.1',
  secure: true,
  origin: 'http://127.0.0.1:8080',
}

const failed = (problem: ProbeProblem, extra: object = {}): ModelCheckState => ({
  state: 'failed',
  problem,
  origin: 'http://localhost:11434',
  config: OLLAMA,
  ...extra,
})

describe('describeCheck', () => {
  it('is green only once a call succeeded, with its time', () => {
    expect(describeCheck({ state: 'checking', config: OLLAMA }, HOME)).toMatchObject({
      tone: 'busy',
      short: 'checking…',
    })
    expect(describeCheck({ state: 'ok', ms: 1234, config: OLLAMA }, HOME)).toEqual({
      tone: 'good',
      short: 'works',
      headline: 'Works (answered in 1.2 s).',
    })
    expect(describeCheck({ state: 'unchecked' }, HOME).tone).toBe('neutral')
  })

  it('shows a slow server as loading, not as failing', () => {
    const words = describeCheck({ state: 'slow', config: OLLAMA, serverUp: true }, HOME)
    expect(words.tone).toBe('busy')
    expect(words.headline).toMatch(/answering slowly; a local server may be loading the model/)
  })

  it('gives each failure its own words', () => {
    const problems: ProbeProblem[] = [
      'auth',
      'unknown-model',
      'not-found',
      'not-llm',
      'http',
      'cors',
      'local-network-blocked',
      'local-network-permission',
      'mixed-content',
      'unreachable',
      'unreachable-or-blocked',
      'timeout',
    ]
    const headlines = problems.map(
      (p) => describeCheck(failed(p, { status: 404 }), LAN_PAGE).headline,
    )
    expect(new Set(headlines).size).toBe(problems.length)
    for (const p of problems) expect(describeCheck(failed(p), HOME).tone).toBe('bad')
  })

  it('names the key, the model and the browser’s block', () => {
    expect(
      describeCheck(failed('auth', { status: 401, detail: 'invalid x-api-key' }), HOME).headline,
    ).toBe('Wrong API key: http://localhost:11434 rejected it (401): invalid x-api-key')
    expect(describeCheck(failed('unknown-model', { status: 404 }), HOME).headline).toContain(
      'Unknown model: http://localhost:11434 has no model “llama3.2”',
    )
    const maybe = describeCheck(failed('unreachable-or-blocked'), LAN_PAGE)
    expect(maybe.headline).toBe('Nothing answers at http://localhost:11434 from this page')
    expect(maybe.advice).toContain('Local Network Access')
    const lna = describeCheck(failed('local-network-blocked'), LAN_PAGE)
    expect(lna.headline).toContain('Local Network Access')
    expect(lna.advice).toContain('this computer’s own addresses')
    expect(lna.advice).toContain('https')
    expect(lna.advice).toContain('npm run agent')
    expect(describeCheck(failed('cors'), HOME).advice).toContain(
      'OLLAMA_ORIGINS=http://127.0.0.1:8080',
    )
  })

  it('names the app on the port the page came from, not a fixed 8080 (issue 56)', () => {
    const page = { ...LAN_PAGE, origin: 'http://10.77.0.1:5173' }
    const lna = describeCheck(failed('local-network-blocked'), page)
    expect(lna.advice).toContain('open it as http://127.0.0.1:5173/ rather than')
    expect(lna.advice).not.toContain('8080')
    const standard = describeCheck(failed('unreachable-or-blocked'), {
      ...LAN_PAGE,
      origin: 'http://10.77.0.1',
    })
    expect(standard.advice).toContain('open it as http://127.0.0.1/ rather than')
  })
})

describe('checkVerdict: what the role is told of a check (issue 56)', () => {
  it('works for an answer or a rate limit, broken with the headline for what cannot work', () => {
    expect(checkVerdict({ state: 'ok', ms: 10, config: OLLAMA }, HOME)).toEqual({ ok: true })
    expect(
      checkVerdict({ state: 'rate-limited', ms: 10, detail: 'slow down', config: OLLAMA }, HOME),
    ).toEqual({ ok: true })
    expect(checkVerdict(failed('auth', { status: 401 }), HOME)).toEqual({
      ok: false,
      kind: 'auth',
      error: 'Wrong API key: http://localhost:11434 rejected it (401)',
    })
    expect(checkVerdict(failed('unknown-model', { status: 404 }), HOME)).toMatchObject({
      ok: false,
      kind: 'not-found',
    })
    expect(checkVerdict(failed('unreachable'), HOME)).toMatchObject({ kind: 'unreachable' })
    expect(checkVerdict(failed('cors'), HOME)).toMatchObject({ kind: 'unreachable' })
  })

  it('says nothing while checking, for the offline model, or for a server error', () => {
    expect(checkVerdict({ state: 'checking', config: OLLAMA }, HOME)).toBeNull()
    expect(checkVerdict({ state: 'slow', config: OLLAMA, serverUp: true }, HOME)).toBeNull()
    expect(checkVerdict({ state: 'offline' }, HOME)).toBeNull()
    expect(checkVerdict(failed('http', { status: 500 }), HOME)).toBeNull()
  })
})
