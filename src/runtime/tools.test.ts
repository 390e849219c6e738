/** What an executor advertises: its person's choice, less what consent and model cannot honour. */
import { afterEach, describe, expect, it } from 'vitest'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import type { CodeSandbox } from '../sandbox/types'
import { CoreDriver } from './driver'
import { OFFLINE_TOOLS, effectiveCapabilities, toolsInUse } from './tools'
import { NO_TOOLS, type Capability } from './types'

const ALL: Capability[] = ['can_write_text', 'can_run_code', 'can_query_api']
const ALL_ON = { runCode: true, webSearch: true, knowledgeAnswers: false }

describe('effectiveCapabilities', () => {
  it('offers text always, code and live data only with consent and a model that can', () => {
    expect(effectiveCapabilities(ALL, NO_TOOLS, { code: true, search: true })).toEqual({
      capabilities: ['can_write_text'],
      withheld: {
        can_run_code: 'running code is off',
        can_query_api: 'web search and answers from the model’s knowledge are off',
      },
    })
    expect(effectiveCapabilities(ALL, ALL_ON, { code: true, search: true }).capabilities).toEqual(
      ALL,
    )
    // a model that refused tools, or a provider without search
    expect(effectiveCapabilities(ALL, ALL_ON, { code: false, search: false }).withheld).toEqual({
      can_run_code: 'this model or server does not call tools',
      can_query_api: "this provider has no web search (only Anthropic's and OpenAI's do)",
    })
    // answers from knowledge stand in for search, anywhere
    const knowledge = { ...NO_TOOLS, knowledgeAnswers: true }
    expect(
      effectiveCapabilities(ALL, knowledge, { code: false, search: false }).capabilities,
    ).toEqual(['can_write_text', 'can_query_api'])
    // never more than the person chose
    expect(effectiveCapabilities(['can_run_code'], ALL_ON, { code: true, search: true })).toEqual({
      capabilities: ['can_run_code'],
      withheld: {},
    })
  })
})

describe('toolsInUse', () => {
  it('gives the offline model its own tools, and a real model only what was consented', () => {
    expect(toolsInUse(NO_TOOLS, true)).toEqual(OFFLINE_TOOLS)
    expect(toolsInUse(NO_TOOLS, false)).toEqual(NO_TOOLS)
    expect(toolsInUse(ALL_ON, false)).toEqual(ALL_ON)
    expect(OFFLINE_TOOLS.webSearch).toBe(false)
  })
})

describe('tools in the driver', () => {
  let driver: CoreDriver | null = null
  afterEach(() => driver?.stop())

  it('setTools takes effect at once, and the activity says what is withheld and why', async () => {
    const rng = createRng('tools-driver')
    const sandbox: CodeSandbox = { run: () => Promise.reject(new Error('unused')), close: () => {} }
    driver = new CoreDriver({
      config: {
        peerId: fakePeerId(rng),
        room: 'r',
        role: 'executor',
        capabilities: ALL,
        capacity: 1,
        model: 'offline-v1',
        offline: true,
      },
      model: { provider: 'offline', model: 'offline-v1' },
      createSandbox: () => sandbox,
      publish: () => {},
      tickMs: 20,
    })
    // the offline model costs nothing: what it can do is on without a tick (issue 43)
    expect(driver.activity().capabilities).toEqual(ALL)
    expect(driver.activity().tools).toMatchObject({
      consent: OFFLINE_TOOLS,
      chosen: ALL,
      model: { code: true, search: false },
    })
    // a real model spends its person's money: its tools wait for their consent
    driver.setModel({
      provider: 'openai-compatible',
      model: 'm',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
    })
    await expect.poll(() => driver!.activity().capabilities).toEqual(['can_write_text'])
    expect(driver.activity().tools).toMatchObject({ consent: NO_TOOLS })
    driver.setTools({ runCode: true, webSearch: true, knowledgeAnswers: false })
    await expect
      .poll(() => driver!.activity().capabilities)
      .toEqual(['can_write_text', 'can_run_code'])
    expect(driver.activity().tools!.withheld).toEqual({
      can_query_api: "this provider has no web search (only Anthropic's and OpenAI's do)",
    })
    driver.setCapabilities(['can_run_code'])
    await expect.poll(() => driver!.activity().capabilities).toEqual(['can_run_code'])
  })
})
