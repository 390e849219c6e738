import { beforeEach, describe, expect, it } from 'vitest'
import type { Capability } from '../../protocol/capabilities'
import { NO_TOOLS, type ToolStatus } from '../../runtime/types'
import {
  capabilityOffers,
  loadToolConsent,
  providerOfModel,
  saveToolConsent,
  webSearchOffered,
} from './tool-consent'

const items = new Map<string, string>()

beforeEach(() => {
  items.clear()
  const storage = {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  }
  Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true })
})

const ALL = ['can_run_code', 'can_query_api', 'can_write_text'] as const

describe('tool consent', () => {
  it('is off by default, then remembered for this browser', () => {
    expect(loadToolConsent()).toEqual(NO_TOOLS)
    saveToolConsent({ runCode: true, webSearch: false, knowledgeAnswers: true })
    expect(loadToolConsent()).toEqual({ runCode: true, webSearch: false, knowledgeAnswers: true })
  })

  it('turns nothing on from unreadable or odd storage', () => {
    items.set('murmuration:tools', '{not json')
    expect(loadToolConsent()).toEqual(NO_TOOLS)
    items.set('murmuration:tools', JSON.stringify({ runCode: 'yes', webSearch: 1 }))
    expect(loadToolConsent()).toEqual(NO_TOOLS)
  })

  it('offers web search only with providers that run it server-side', () => {
    expect(webSearchOffered('anthropic')).toBe(true)
    expect(webSearchOffered('openai')).toBe(true)
    expect(webSearchOffered('openai-compatible')).toBe(false)
    expect(webSearchOffered('offline')).toBe(false)
  })

  it('reads the provider from the model label', () => {
    expect(providerOfModel('anthropic/claude-haiku-4-5', false)).toBe('anthropic')
    expect(providerOfModel('openai-compatible/org/model', false)).toBe('openai-compatible')
    expect(providerOfModel('offline-v1', true)).toBe('offline')
  })
})

describe('what an executor offers, and why not', () => {
  const offers = (status: Partial<ToolStatus>, advertised: Capability[]) =>
    Object.fromEntries(
      capabilityOffers(
        {
          chosen: [...ALL],
          consent: NO_TOOLS,
          model: { code: true, search: true },
          withheld: {},
          ...status,
        },
        advertised,
      ).map((o) => [o.capability, [o.offered, o.note]]),
    )

  it('with no consent: writing only, and each tool says what to turn on', () => {
    expect(offers({}, ['can_write_text'])).toEqual({
      can_write_text: [true, null],
      can_run_code: [false, 'turn on “Run code in this tab”'],
      can_query_api: [false, 'turn on web search'],
    })
    expect(offers({ model: { code: true, search: false } }, ['can_write_text'])).toEqual({
      can_write_text: [true, null],
      can_run_code: [false, 'turn on “Run code in this tab”'],
      can_query_api: [
        false,
        'web search needs Anthropic or OpenAI; or allow answers from the model’s knowledge',
      ],
    })
  })

  it('with consent: the tools, and knowledge answers marked as unchecked', () => {
    const consent = { runCode: true, webSearch: true, knowledgeAnswers: false }
    expect(offers({ consent }, [...ALL])).toEqual({
      can_write_text: [true, null],
      can_run_code: [true, null],
      can_query_api: [true, null],
    })
    const knowledge = { ...NO_TOOLS, knowledgeAnswers: true }
    expect(
      offers({ consent: knowledge, model: { code: true, search: false } }, [
        'can_write_text',
        'can_query_api',
      ]),
    ).toEqual({
      can_write_text: [true, null],
      can_run_code: [false, 'turn on “Run code in this tab”'],
      can_query_api: [true, 'from the model’s knowledge, marked as not checked live'],
    })
  })

  it('a capability switched off, or one the model cannot honour, is not offered', () => {
    const consent = { runCode: true, webSearch: true, knowledgeAnswers: false }
    expect(
      offers(
        {
          chosen: ['can_run_code', 'can_query_api'],
          consent,
          model: { code: false, search: true },
          withheld: { can_run_code: 'this model or server does not call tools' },
        },
        ['can_query_api'],
      ),
    ).toEqual({
      can_write_text: [false, 'switched off'],
      can_run_code: [false, 'this model or server does not call tools'],
      can_query_api: [true, null],
    })
  })

  it('falls back to the runtime’s reason when the consent and model explain nothing', () => {
    const consent = { runCode: true, webSearch: true, knowledgeAnswers: true }
    expect(
      offers({ consent, withheld: { can_run_code: 'no sandbox in this process' } }, [])
        .can_run_code,
    ).toEqual([false, 'no sandbox in this process'])
  })
})
