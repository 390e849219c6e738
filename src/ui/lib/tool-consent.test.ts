import { beforeEach, describe, expect, it } from 'vitest'
import type { Capability } from '../../protocol/capabilities'
import { NO_TOOLS, type ToolStatus } from '../../runtime/types'
import {
  capabilitySwitches,
  loadToolConsent,
  providerOfModel,
  saveToolConsent,
  switchCapability,
  switchWebSearch,
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

describe('one switch per capability: ON exactly when offered', () => {
  const status = (over: Partial<ToolStatus> = {}): ToolStatus => ({
    chosen: [...ALL],
    consent: NO_TOOLS,
    model: { code: true, search: true },
    withheld: {},
    ...over,
  })
  const view = (s: ToolStatus, advertised: Capability[], offline: boolean) =>
    Object.fromEntries(
      capabilitySwitches(s, advertised, offline).map((w) => [
        w.capability,
        [w.on, w.available, w.note],
      ]),
    )

  it('the offline model: everything on, and says what it really does', () => {
    const offered = view(status({ model: { code: true, search: false } }), [...ALL], true)
    expect(offered).toEqual({
      can_write_text: [true, true, null],
      can_run_code: [
        true,
        true,
        'the offline model runs a small program of its own (a plain computation the leaf names, or one about its words), in a sandbox in this tab',
      ],
      can_query_api: [true, true, 'from the model’s knowledge, marked as not checked live'],
    })
  })

  it('a real model without consent: code and live facts show OFF, with what turning them on costs', () => {
    const offered = view(status(), ['can_write_text'], false)
    expect(offered.can_write_text).toEqual([true, true, null])
    expect(offered.can_run_code![0]).toBe(false)
    expect(offered.can_run_code![2]).toMatch(/off until you turn it on.*your key/)
    expect(offered.can_query_api![0]).toBe(false)
    expect(offered.can_query_api![2]).toMatch(/web search with your key/)
  })

  it('never shows ON what is not advertised, whatever was chosen or consented', () => {
    const consent = { runCode: true, webSearch: true, knowledgeAnswers: true }
    const offered = view(
      status({ consent, withheld: { can_query_api: 'not now' } }),
      ['can_write_text'],
      false,
    )
    expect(offered.can_run_code![0]).toBe(false)
    expect(offered.can_query_api).toEqual([false, true, 'not now'])
  })

  it('a model that cannot call tools: the code switch is off and cannot be turned on', () => {
    const offered = view(
      status({
        model: { code: false, search: false },
        withheld: { can_run_code: 'this model or server does not call tools' },
      }),
      ['can_write_text'],
      false,
    )
    expect(offered.can_run_code).toEqual([false, false, 'this model or server does not call tools'])
  })

  it('web search, when on, says it is billed', () => {
    const consent = { runCode: false, webSearch: true, knowledgeAnswers: false }
    expect(view(status({ consent }), ['can_query_api'], false).can_query_api).toEqual([
      true,
      true,
      'with web search, billed per search to your key',
    ])
  })
})

describe('flipping a switch', () => {
  const none = { chosen: ['can_write_text'] as Capability[], consent: NO_TOOLS }

  it('with a real model, turning on consents to the tool (knowledge answers unless search is on)', () => {
    const code = switchCapability(none, 'can_run_code', true, false)
    expect(code).toEqual({
      chosen: ['can_run_code', 'can_write_text'],
      consent: { ...NO_TOOLS, runCode: true },
    })
    const live = switchCapability(none, 'can_query_api', true, false)
    expect(live.consent).toEqual({ ...NO_TOOLS, knowledgeAnswers: true })
    const searching = { chosen: none.chosen, consent: { ...NO_TOOLS, webSearch: true } }
    expect(switchCapability(searching, 'can_query_api', true, false).consent).toEqual({
      ...NO_TOOLS,
      webSearch: true,
    })
  })

  it('with the offline model, turning on consents to nothing a real model would inherit', () => {
    expect(switchCapability(none, 'can_run_code', true, true)).toEqual({
      chosen: ['can_run_code', 'can_write_text'],
      consent: NO_TOOLS,
    })
  })

  it('turning off withdraws the choice and the consent', () => {
    const all = {
      chosen: [...ALL] as Capability[],
      consent: { runCode: true, webSearch: true, knowledgeAnswers: true },
    }
    expect(switchCapability(all, 'can_run_code', false, false)).toEqual({
      chosen: ['can_query_api', 'can_write_text'],
      consent: { runCode: false, webSearch: true, knowledgeAnswers: true },
    })
    expect(switchCapability(all, 'can_query_api', false, true).consent).toEqual({
      runCode: true,
      webSearch: false,
      knowledgeAnswers: false,
    })
  })

  it('the web search box turns live facts on with it', () => {
    expect(switchWebSearch(none, true)).toEqual({
      chosen: ['can_query_api', 'can_write_text'],
      consent: { ...NO_TOOLS, webSearch: true },
    })
    expect(switchWebSearch({ ...none, consent: { ...NO_TOOLS, webSearch: true } }, false)).toEqual(
      none,
    )
  })
})
