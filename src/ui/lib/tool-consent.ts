/**
 * What a person lets this tab's executor do with tools (issue 24): run the
 * code its model writes, search the web with their key, answer live
 * questions from the model's knowledge. Each is off until ticked, and
 * remembered in this browser like the other settings (localStorage); the
 * runtime gets it through setTools().
 *
 * Also, in words, which capabilities the executor offers and why it does
 * not offer the others: a person who wonders why nobody claims a code leaf
 * reads "can_run_code: off — turn on “Run code in this tab”".
 */
import { CAPABILITIES, type Capability } from '../../protocol/capabilities'
import { NO_TOOLS, type ToolConsent } from '../../runtime/types'
import type { Provider } from './model-settings'

const KEY = 'murmuration:tools'

export function loadToolConsent(): ToolConsent {
  try {
    const raw = localStorage.getItem(KEY)
    if (raw === null) return { ...NO_TOOLS }
    const parsed = JSON.parse(raw) as Partial<Record<keyof ToolConsent, unknown>>
    // only an explicit true turns a tool on
    return {
      runCode: parsed.runCode === true,
      webSearch: parsed.webSearch === true,
      knowledgeAnswers: parsed.knowledgeAnswers === true,
    }
  } catch {
    return { ...NO_TOOLS }
  }
}

export function saveToolConsent(consent: ToolConsent): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(consent))
  } catch {
    // not remembered; the running executor still uses it
  }
}

/** Providers whose own web search runs server-side with the person's key (AI SDK provider tools). */
const WEB_SEARCH_PROVIDERS: readonly Provider[] = ['anthropic', 'openai']

export function webSearchOffered(provider: Provider): boolean {
  return WEB_SEARCH_PROVIDERS.includes(provider)
}

/**
 * The provider of a role's model, from its label in the activity
 * ("anthropic/claude-haiku-4-5", "offline-v1"; src/runtime/driver.ts
 * modelLabel): the provider is what comes before the first slash.
 */
export function providerOfModel(label: string, offline: boolean): Provider {
  if (offline) return 'offline'
  const prefix = label.slice(0, label.indexOf('/'))
  return prefix === 'anthropic' || prefix === 'openai' || prefix === 'openai-compatible'
    ? prefix
    : 'offline'
}

export interface CapabilityOffer {
  capability: Capability
  offered: boolean
  /** why it is not offered, or a caveat when it is; null when there is nothing to say */
  note: string | null
}

export interface OfferInput {
  /** the capabilities switched on in this tab */
  chosen: readonly Capability[]
  consent: ToolConsent
  provider: Provider
  /** what the executor really advertises, when the runtime says (it knows whether the model calls tools) */
  advertised?: readonly Capability[]
}

/** Why a capability the person chose is not offered, by the consent and the provider; null when nothing stands in the way. */
function missing(capability: Capability, consent: ToolConsent, provider: Provider): string | null {
  if (capability === 'can_run_code' && !consent.runCode) return 'turn on “Run code in this tab”'
  if (capability !== 'can_query_api') return null
  if (consent.knowledgeAnswers || (consent.webSearch && webSearchOffered(provider))) return null
  return webSearchOffered(provider)
    ? 'turn on web search'
    : 'web search needs Anthropic or OpenAI; or allow answers from the model’s knowledge'
}

export function capabilityOffers(input: OfferInput): CapabilityOffer[] {
  const { chosen, consent, provider, advertised } = input
  return CAPABILITIES.map((capability) => {
    if (!chosen.includes(capability)) return { capability, offered: false, note: 'switched off' }
    const why = missing(capability, consent, provider)
    if (why) return { capability, offered: false, note: why }
    if (advertised && !advertised.includes(capability)) {
      return { capability, offered: false, note: 'the model in use cannot call tools' }
    }
    const unchecked =
      capability === 'can_query_api' && !(consent.webSearch && webSearchOffered(provider))
    return {
      capability,
      offered: true,
      note: unchecked ? 'from the model’s knowledge, marked as not checked live' : null,
    }
  })
}
