/**
 * What a call cost, for the per-role and per-goal cost display.
 *
 * List prices in US dollars per million tokens (input / output), standard
 * tier, no caching or batch discounts, as published by Anthropic and OpenAI
 * in 2025. They drift: the UI shows the result as an estimate. The offline
 * model costs 0. A model we have no price for (a local server, a new model)
 * has an unknown cost, `null`: never shown as $0, and never summed as 0
 * (see CostSum).
 */
import type { LlmUsage, ToolSpend } from './types'

export interface ModelPrice {
  /** $ per million input tokens */
  input: number
  /** $ per million output tokens */
  output: number
}

/** Keys are model id prefixes; the longest matching prefix wins (dated ids like -20250929 match). */
export const PRICES_PER_MTOK: Readonly<Record<string, ModelPrice>> = {
  // Anthropic
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-3-5-sonnet': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-3-haiku': { input: 0.25, output: 1.25 },
  // OpenAI
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'o3-mini': { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
}

/** Tokens per price unit: prices are quoted per million tokens. */
const TOKENS_PER_PRICE_UNIT = 1_000_000

/**
 * Normalise a model id: lower case, drop a router's vendor prefix
 * ("anthropic/claude-sonnet-4.5" on OpenRouter), and write Claude versions
 * with dashes, as Anthropic's own ids do.
 */
function normalise(model: string): string {
  let id = model.trim().toLowerCase()
  const slash = id.lastIndexOf('/')
  if (slash >= 0) id = id.slice(slash + 1)
  if (id.startsWith('claude')) id = id.replace(/\./g, '-')
  return id
}

/** The price of a model, or undefined when we do not know it. */
export function priceFor(model: string): ModelPrice | undefined {
  const id = normalise(model)
  let best: string | undefined
  for (const prefix of Object.keys(PRICES_PER_MTOK)) {
    // A prefix matches the whole id or up to a dash ("gpt-4o" must not match "gpt-4o1").
    const matches = id === prefix || id.startsWith(`${prefix}-`)
    if (matches && (best === undefined || prefix.length > best.length)) best = prefix
  }
  return best === undefined ? undefined : PRICES_PER_MTOK[best]
}

/**
 * Web searches are priced per call, on top of tokens (the pages they bring
 * back arrive as input tokens, counted already).
 * - Anthropic: $10 per 1,000 searches (web_search tool, docs.claude.com,
 *   "Web search tool" pricing).
 * - OpenAI: $10 per 1,000 calls of the Responses API's web_search tool, for
 *   all models, plus search content tokens at model rates
 *   (openai.com/api/pricing, "Built-in tools"; confirmed by OpenAI staff at
 *   community.openai.com/t/search-web-using-openai-api/1363698). The older
 *   web_search_preview on non-reasoning models costs $25 per 1,000; we never
 *   send it.
 */
export const WEB_SEARCH_USD_PER_CALL: Readonly<Record<string, number>> = {
  anthropic: 0.01,
  openai: 0.01,
}

/** What a call's tools cost beyond tokens: 0 without searches; null for searches of an unknown price. */
export function toolCostUsd(provider: string, tools: ToolSpend | undefined): number | null {
  if (!tools || tools.webSearches <= 0) return 0
  const perCall = WEB_SEARCH_USD_PER_CALL[provider]
  return perCall === undefined ? null : tools.webSearches * perCall
}

/**
 * Estimated cost in US dollars, tokens and tool calls (web searches); 0 for
 * the offline model, and for a call that spent nothing (one refused before
 * any token: a rejected key, an unknown model), whatever the price; null
 * when the model's (or a tool's) price is unknown.
 */
export function costUsd(usage: LlmUsage, tools?: ToolSpend): number | null {
  if (usage.offline || usage.provider === 'offline') return 0
  if (usage.inputTokens === 0 && usage.outputTokens === 0 && !(tools && tools.webSearches > 0))
    return 0
  const price = priceFor(usage.model)
  const toolCost = toolCostUsd(usage.provider, tools)
  if (!price || toolCost === null) return null
  return (
    (usage.inputTokens * price.input + usage.outputTokens * price.output) / TOKENS_PER_PRICE_UNIT +
    toolCost
  )
}

/** Is this model's cost known (offline, or a model with a list price)? */
export function priceKnown(provider: string, model: string): boolean {
  return provider === 'offline' || priceFor(model) !== undefined
}
