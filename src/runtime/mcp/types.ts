/**
 * A person's MCP servers as their executor holds them (issue 57): what they
 * brought (a command for a stdio server, a URL for a Streamable HTTP one),
 * what each server's tools are, and which of them they turned on, for whom.
 * All of it stays with its person: the room learns only the group names,
 * tool names and annotations (src/protocol/tool-groups.ts).
 */

/** A server to connect: a command this agent starts (stdio), or a URL (Streamable HTTP). */
export type McpServerSpec =
  | {
      kind: 'stdio'
      /** the group's name in the room; default from the server's own name */
      name?: string
      command: string
      args: string[]
    }
  | { kind: 'http'; name?: string; url: string }

/** One tool as its server lists it (to its person: the description is never announced). */
export interface McpToolInfo {
  name: string
  description: string
  /** JSON Schema of its arguments */
  inputSchema: Record<string, unknown>
  /** MCP annotations, with the spec's defaults for missing ones (readOnly false, destructive true, openWorld true) */
  readOnly: boolean
  destructive: boolean
  openWorld: boolean
}

/**
 * Who may use a tool: nobody ('off', every tool's default), its person's
 * own goals ('own'; another member's goal asks first, or is refused by an
 * agent), or any member's goal ('anyone').
 */
export type ToolAccess = 'off' | 'own' | 'anyone'

/** Per group, per tool: what its person allows. A tool not listed is off. */
export type McpConsent = Record<string, Record<string, ToolAccess>>

/** A server as its person's page or terminal shows it. */
export interface McpServerStatus {
  /** the group's name in the room */
  group: string
  kind: McpServerSpec['kind']
  /** the command or URL: shown to its person, never announced */
  target: string
  state: 'connecting' | 'ready' | 'failed'
  /** why it failed, with what to do (a CORS refusal says which headers are missing) */
  error?: string
  /** the server's own name and version, as it introduced itself */
  server?: string
  tools: (Omit<McpToolInfo, 'inputSchema'> & { access: ToolAccess })[]
}

/** Another member's goal asks to call a tool kept for its person's own goals: it waits for them. */
export interface ToolApproval {
  id: string
  group: string
  tool: string
  /** the arguments, as JSON */
  input: string
  /** the root goal asking, and its text (whose goal it is, in the room's words) */
  goal: string | null
  goalText: string
  /** local time it began to wait */
  since: number
}

export interface McpStatus {
  servers: McpServerStatus[]
  /** calls waiting for this person's answer, oldest first */
  approvals: ToolApproval[]
}

/** A tab's MCP settings, as its person set them (kept in that browser only). */
export interface McpSettings {
  servers: McpServerSpec[]
  consent: McpConsent
}
