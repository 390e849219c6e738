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
import { NO_TOOLS, type ToolConsent, type ToolStatus } from '../../runtime/types'
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
  /** why it is not offered (what to do about it), or a caveat when it is; null when there is nothing to say */
  note: string | null
}

/**
 * Each capability: offered or not, and why, in words that say what to do.
 * `status` is the runtime's (RoleActivity.tools); `advertised` is what the
 * executor really advertises (RoleActivity.capabilities), which decides.
 */
export function capabilityOffers(
  status: ToolStatus,
  advertised: readonly Capability[],
): CapabilityOffer[] {
  const { chosen, consent, model, withheld } = status
  return CAPABILITIES.map((capability) => {
    if (advertised.includes(capability)) {
      const unchecked = capability === 'can_query_api' && !(consent.webSearch && model.search)
      return {
        capability,
        offered: true,
        note: unchecked ? 'from the model’s knowledge, marked as not checked live' : null,
      }
    }
    if (!chosen.includes(capability)) return { capability, offered: false, note: 'switched off' }
    return {
      capability,
      offered: false,
      note: remedy(capability, status) ?? withheld[capability] ?? null,
    }
  })
}

/** What would let the executor offer a capability its person chose, in words; null when nothing in the consent or model stands in the way. */
function remedy(capability: Capability, { consent, model }: ToolStatus): string | null {
  switch (capability) {
    case 'can_write_text':
      return null
    case 'can_run_code':
      if (!consent.runCode) return 'turn on “Run code in this tab”'
      return model.code ? null : 'this model or server does not call tools'
    case 'can_query_api':
      if (model.search) return consent.webSearch ? null : 'turn on web search'
      return consent.knowledgeAnswers
        ? null
        : 'web search needs Anthropic or OpenAI; or allow answers from the model’s knowledge'
  }
}
