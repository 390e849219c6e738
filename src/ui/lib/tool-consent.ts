/**
 * What a person lets this tab's executor do with tools (issue 24): run the
 * code its model writes, search the web with their key, answer live
 * questions from the model's knowledge. Each is off until ticked, and
 * remembered in this browser like the other settings (localStorage); the
 * runtime gets it through setTools().
 *
 * With the built-in offline model none of this is asked (issue 43): it costs
 * nothing, so its tools are on (runtime/tools.ts OFFLINE_TOOLS).
 *
 * Also, as one switch per capability, what the executor offers and, when
 * it does not, why and what turning it on means.
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

/** How much a provider's own web search costs: said next to the box that turns it on. */
export function searchNote(providerName: string): string {
  return `${providerName}’s own web search, with your key: searches are billed per call by ${providerName}, and count against your spending limits. The result cites its sources.`
}

/**
 * One switch of "What this executor does" (issue 43): it shows ON exactly
 * when the executor offers the capability to the room, so nothing reads
 * ON that is off.
 */
export interface CapabilitySwitch {
  capability: Capability
  /** offered to the room (advertised in its presence beats) */
  on: boolean
  /** a click can turn it on here; false when the model or the tab cannot do it */
  available: boolean
  /** what it does when on, or why it is off and what turning it on means; null: nothing to say */
  note: string | null
}

/**
 * Each capability's switch, from what the executor advertises (which
 * decides), the runtime's tool status, and the model: the offline model's
 * tools are on without a tick (runtime/tools.ts OFFLINE_TOOLS), a real
 * model's wait for its person's consent because they spend their key.
 */
export function capabilitySwitches(
  status: ToolStatus,
  advertised: readonly Capability[],
  offline: boolean,
): CapabilitySwitch[] {
  const { chosen, model, withheld } = status
  return CAPABILITIES.map((capability) => {
    if (advertised.includes(capability))
      return { capability, on: true, available: true, note: whatOn(capability, status, offline) }
    if (capability === 'can_run_code' && !model.code) {
      const why = withheld.can_run_code ?? 'this model or server does not call tools'
      return { capability, on: false, available: false, note: why }
    }
    if (!chosen.includes(capability)) return { capability, on: false, available: true, note: null }
    const note = costOf(capability, offline, status) ?? withheld[capability] ?? null
    return { capability, on: false, available: true, note }
  })
}

/** What an offered capability does, when there is more to say than its name. */
function whatOn(capability: Capability, { consent, model }: ToolStatus, offline: boolean) {
  switch (capability) {
    case 'can_write_text':
      return null
    case 'can_run_code':
      return offline
        ? 'the offline model runs a small program of its own (a plain computation the leaf names, or one about its words), in a sandbox in this tab'
        : 'JavaScript your model writes runs in a sandbox in this tab (no network); its real output goes into the result'
    case 'can_query_api':
      return consent.webSearch && model.search
        ? 'with web search, billed per search to your key'
        : 'from the model’s knowledge, marked as not checked live'
  }
}

/** Why a capability chosen but not offered is off with a real model: it waits for consent to spend the key. */
function costOf(capability: Capability, offline: boolean, { consent, model }: ToolStatus) {
  if (offline) return null
  if (capability === 'can_run_code' && !consent.runCode)
    return 'off until you turn it on: your model’s code runs in this tab and its calls count against your key'
  if (capability === 'can_query_api' && !consent.webSearch && !consent.knowledgeAnswers)
    return model.search
      ? 'off until you turn it on: answers from the model’s knowledge, or web search with your key'
      : 'off until you turn it on: answers from the model’s knowledge, marked as not checked live'
  return null
}

/** What this tab remembers: the capabilities chosen and the tool consent (for real models). */
export interface ExecutorChoice {
  chosen: Capability[]
  consent: ToolConsent
}

/**
 * The person flipped a capability's switch. On: it is chosen, and with a
 * real model its tool is consented to (live facts from the model's
 * knowledge unless web search is already on). Off: it is not chosen, and
 * its consent is withdrawn, so that a later real model does not inherit
 * it. The offline model's tools need no consent, so turning one on there
 * consents to nothing that would later spend a key.
 */
export function switchCapability(
  choice: ExecutorChoice,
  capability: Capability,
  on: boolean,
  offline: boolean,
): ExecutorChoice {
  const chosen = CAPABILITIES.filter((c) => (c === capability ? on : choice.chosen.includes(c)))
  const consent = { ...choice.consent }
  if (capability === 'can_run_code' && (!on || !offline)) consent.runCode = on
  if (capability === 'can_query_api') {
    if (!on) {
      consent.webSearch = false
      consent.knowledgeAnswers = false
    } else if (!offline && !consent.webSearch) consent.knowledgeAnswers = true
  }
  return { chosen, consent }
}

/** The "Search the web with my key" box (providers with a server-side search): it turns live facts on too. */
export function switchWebSearch(choice: ExecutorChoice, on: boolean): ExecutorChoice {
  const chosen =
    on && !choice.chosen.includes('can_query_api')
      ? CAPABILITIES.filter((c) => c === 'can_query_api' || choice.chosen.includes(c))
      : [...choice.chosen]
  return { chosen, consent: { ...choice.consent, webSearch: on } }
}
