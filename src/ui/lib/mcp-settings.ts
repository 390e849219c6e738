/**
 * A tab's MCP servers and its person's consent per tool (issue 57), as this
 * browser remembers them (localStorage, like the model and its key): the
 * URLs stay here and go only to their servers, from this tab's role worker.
 * Every tool is off until its person picks who may use it.
 */
import type { McpConsent, McpServerSpec, McpSettings, ToolAccess } from '../../runtime/mcp/types'
import { TOOL_GROUP_NAME, MAX_TOOL_GROUP_NAME } from '../../protocol/limits'

const KEY = 'murmuration:mcp'
const ACCESS: readonly ToolAccess[] = ['off', 'own', 'anyone']

export const NO_MCP: McpSettings = { servers: [], consent: {} }

/** Words for who may use a tool, as its select offers them. */
export const ACCESS_LABELS: Record<ToolAccess, string> = {
  off: 'Off',
  own: 'My goals only (others ask me)',
  anyone: 'Anyone’s goals',
}

function httpSpec(value: unknown): McpServerSpec | null {
  if (value === null || typeof value !== 'object') return null
  const { kind, url, name } = value as Record<string, unknown>
  if (kind !== 'http' || typeof url !== 'string' || checkServerUrl(url) !== null) return null
  const named = typeof name === 'string' && checkGroupName(name) === null ? { name } : {}
  return { kind: 'http', url, ...named }
}

export function loadMcpSettings(): McpSettings {
  try {
    const raw = localStorage.getItem(KEY)
    if (raw === null) return { ...NO_MCP }
    const parsed = JSON.parse(raw) as { servers?: unknown; consent?: unknown }
    const servers = Array.isArray(parsed.servers)
      ? parsed.servers.map(httpSpec).filter((s): s is McpServerSpec => s !== null)
      : []
    const consent: McpConsent = {}
    if (parsed.consent && typeof parsed.consent === 'object') {
      for (const [group, tools] of Object.entries(parsed.consent as Record<string, unknown>)) {
        if (!tools || typeof tools !== 'object') continue
        consent[group] = {}
        for (const [tool, access] of Object.entries(tools as Record<string, unknown>))
          if (ACCESS.includes(access as ToolAccess)) consent[group][tool] = access as ToolAccess
      }
    }
    return { servers, consent }
  } catch {
    return { ...NO_MCP }
  }
}

export function saveMcpSettings(settings: McpSettings): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(settings))
  } catch {
    // not remembered; the running executor still uses it
  }
}

/** Why a server address will not do, or null. */
export function checkServerUrl(value: string): string | null {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    return 'Give the server’s full address, such as http://127.0.0.1:3001/mcp'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'A tab reaches MCP servers over http(s) (Streamable HTTP); a command needs the headless agent’s --mcp'
  return null
}

/** Why a group name will not do, or null (empty is fine: the server's own name is used). */
export function checkGroupName(value: string): string | null {
  if (value === '') return null
  if (value.length > MAX_TOOL_GROUP_NAME || !TOOL_GROUP_NAME.test(value))
    return `Lowercase letters, digits and dashes, at most ${MAX_TOOL_GROUP_NAME}`
  return null
}

/** The settings with one tool's access changed. */
export function withAccess(
  settings: McpSettings,
  group: string,
  tool: string,
  access: ToolAccess,
): McpSettings {
  const tools = { ...(settings.consent[group] ?? {}), [tool]: access }
  return { ...settings, consent: { ...settings.consent, [group]: tools } }
}

export { toolTraits } from '../../runtime/mcp/consent'
