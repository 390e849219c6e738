/**
 * This tab's MCP settings (issue 57), shared by the servers panel and the
 * approvals: what this browser remembers, handed to the runtime at every
 * change (its role worker connects, disconnects and applies the consent).
 */
import type { McpSettings, PeerRuntime } from '../../runtime/types'
import { loadMcpSettings, saveMcpSettings } from './mcp-settings'

// raw: the runtime posts it to its worker, and a state proxy cannot be cloned
let settings = $state.raw<McpSettings>(loadMcpSettings())

export function mcpSettings(): McpSettings {
  return settings
}

/** Remembers new settings in this browser and hands them to the runtime at once. */
export function applyMcp(runtime: PeerRuntime, next: McpSettings): void {
  settings = next
  saveMcpSettings(next)
  runtime.setMcp(next)
}
