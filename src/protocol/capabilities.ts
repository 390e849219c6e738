/**
 * What an executor can do; a leaf needs exactly one of these. Part of the
 * wire protocol (presence beats and nodes carry them) and of the contract
 * between roles and the LLM layer, so it lives here, in the pure core.
 */
export type Capability = 'can_run_code' | 'can_query_api' | 'can_write_text'
export const CAPABILITIES: readonly Capability[] = [
  'can_run_code',
  'can_query_api',
  'can_write_text',
]
