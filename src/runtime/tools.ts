/**
 * Which capabilities an executor advertises (issue 24): the ones its person
 * chose, less what its tool consent and its model cannot honour. Pure: the
 * driver calls it whenever the choice, the consent or the model changes,
 * and the core re-advertises the result in its next presence beat.
 */
import type { Capability } from '../protocol/capabilities'
import type { ToolConsent } from './types'

/**
 * What the built-in offline model may do without anyone ticking a box
 * (issue 43): it costs nothing and reaches nothing outside the tab, so the
 * consent that guards a person's key does not apply. It runs a small
 * program of its own in the sandbox and answers live-data leaves from
 * "knowledge", marked as not checked live; it has no web search.
 */
export const OFFLINE_TOOLS: ToolConsent = {
  runCode: true,
  webSearch: false,
  knowledgeAnswers: true,
}

/**
 * The tools an executor uses: with the offline model, OFFLINE_TOOLS; with a
 * real model, only what its person consented to (it spends their money).
 */
export function toolsInUse(consent: ToolConsent, offline: boolean): ToolConsent {
  return offline ? { ...OFFLINE_TOOLS } : { ...consent }
}

/** What the current model does with tools (src/llm/provider.ts, LlmProvider.toolSupport). */
export interface ModelTools {
  /** calls function tools (run_javascript); the offline model counts */
  code: boolean
  /** has a server-side web search (Anthropic, OpenAI) */
  search: boolean
}

export interface EffectiveCapabilities {
  /** what the executor advertises and claims leaves for */
  capabilities: Capability[]
  /** why each chosen capability is not offered, in words for its person */
  withheld: Partial<Record<Capability, string>>
}

export function effectiveCapabilities(
  chosen: readonly Capability[],
  consent: ToolConsent,
  model: ModelTools,
): EffectiveCapabilities {
  const capabilities: Capability[] = []
  const withheld: Partial<Record<Capability, string>> = {}
  for (const capability of chosen) {
    const why = withheldBecause(capability, consent, model)
    if (why === null) capabilities.push(capability)
    else withheld[capability] = why
  }
  return { capabilities, withheld }
}

function withheldBecause(
  capability: Capability,
  consent: ToolConsent,
  model: ModelTools,
): string | null {
  switch (capability) {
    case 'can_write_text':
      return null
    case 'can_run_code':
      if (!consent.runCode) return 'running code is off'
      if (!model.code) return 'this model or server does not call tools'
      return null
    case 'can_query_api':
      if (consent.webSearch && model.search) return null
      if (consent.knowledgeAnswers) return null
      if (consent.webSearch)
        return "this provider has no web search (only Anthropic's and OpenAI's do)"
      return 'web search and answers from the model’s knowledge are off'
  }
}
