/**
 * The LLM layer's types. The contract with role logic (tasks, outcomes,
 * capabilities, usage) is owned by the core (src/roles/llm-contract.ts,
 * src/protocol/capabilities.ts) and re-exported here for the layer's own
 * modules; what is only the LLM layer's (which provider and model) is here.
 */
export { CAPABILITIES, type Capability } from '../protocol/capabilities'
export type * from '../roles/llm-contract'

/** Which provider and model a role uses. The apiKey never leaves this browser except to baseUrl. */
export interface ModelConfig {
  provider: 'offline' | 'anthropic' | 'openai' | 'openai-compatible'
  model: string
  apiKey?: string
  /** required for openai-compatible (e.g. http://localhost:11434/v1); optional override otherwise */
  baseUrl?: string
}
