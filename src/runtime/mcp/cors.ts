/**
 * Why a server did not connect, in words its person can act on (issue 57).
 * A tab calls a Streamable HTTP server from its page's origin, so the
 * server must allow that origin (CORS): a browser hides the refusal and
 * reports only "Failed to fetch", so a failed fetch from a page is told
 * apart from a dead server by a second, opaque request (`no-cors`) that a
 * browser lets through whatever the server's headers: it succeeds when
 * something answers (the server is up but refuses this page), and fails
 * when nothing does.
 */
import type { McpServerSpec } from './types'

/** What a Streamable HTTP server must send for a page on another origin to use it. */
export const CORS_HEADERS = [
  'Access-Control-Allow-Origin: <this page’s origin> (or *)',
  'Access-Control-Allow-Methods: GET, POST, DELETE',
  'Access-Control-Allow-Headers: content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
  'Access-Control-Expose-Headers: mcp-session-id',
]

/** A fetch that never left or never came back: a browser's CORS refusal looks exactly like this. */
const NETWORK_FAILURE = /failed to fetch|networkerror|load failed|fetch failed|econnrefused/i

function message(error: unknown): string {
  const own = error instanceof Error ? error.message : String(error)
  const cause =
    error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${own}${cause}`
}

/** Sends an opaque request, as a page may to any origin: true when something answered. */
export type ReachProbe = (url: string) => Promise<boolean>

const inPage = (): boolean =>
  typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
  typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined'

/** A page's probe: a no-cors POST, which needs no permission from the server. */
export const pageProbe: ReachProbe = async (url) => {
  try {
    await fetch(url, { method: 'POST', mode: 'no-cors', body: '{}', cache: 'no-store' })
    return true
  } catch {
    return false
  }
}

function corsAdvice(url: string, origin: string): string {
  return (
    `the server at ${url} answers, but does not let this page (${origin}) use it: it sends no CORS headers for it. ` +
    `The server must answer OPTIONS and send ${CORS_HEADERS.join('; ')}. ` +
    'Turn CORS on in the server (many take an option for allowed origins), or put it behind a proxy that adds them, ' +
    'or run the headless agent next to it with --mcp-url, which needs no CORS'
  )
}

/**
 * The sentence a person reads when `spec` would not connect. `probe` (a
 * page's) tells a CORS refusal from a dead server; absent (an agent), a
 * failed fetch means nothing answered.
 */
export async function explainConnectError(
  spec: McpServerSpec,
  error: unknown,
  probe: ReachProbe | null = inPage() ? pageProbe : null,
): Promise<string> {
  const text = message(error)
  if (spec.kind === 'stdio') {
    if (/ENOENT/.test(text)) return `the command ${spec.command} was not found (${text})`
    return `the server did not start or answer: ${text}`
  }
  if (NETWORK_FAILURE.test(text)) {
    if (probe && (await probe(spec.url))) {
      const origin =
        (globalThis as { location?: { origin?: string } }).location?.origin ?? 'this page'
      return corsAdvice(spec.url, origin)
    }
    return `nothing answers at ${spec.url}: is the server running, and is this its Streamable HTTP address (often …/mcp)? (${text})`
  }
  if (/session/i.test(text))
    return (
      `the server's session did not hold (${text}): a server a page uses must expose its session id ` +
      '(Access-Control-Expose-Headers: mcp-session-id)'
    )
  if (/HTTP 404/.test(text))
    return `no MCP endpoint at ${spec.url} (HTTP 404): check the path, often …/mcp`
  if (/HTTP 40[13]/.test(text))
    return `the server wants a login (${text.slice(0, 200)}): servers that need one are not supported yet`
  return `the server did not connect: ${text.slice(0, 400)}`
}
