/**
 * /app-config.json, written by `npm start`: the LAN addresses the app is
 * served on, so a share link works from a friend's machine (location.origin
 * may be "localhost"). Absent or empty (tests, `vite dev`): we use
 * location.origin.
 */
export interface AppConfig {
  lanOrigins: string[]
}

function isHttpOrigin(value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.origin === value.replace(/\/$/, '')
    )
  } catch {
    return false
  }
}

let cached: Promise<AppConfig> | null = null

export function loadAppConfig(): Promise<AppConfig> {
  cached ??= fetch('/app-config.json', { cache: 'no-store' })
    .then(async (res) => {
      if (!res.ok) return { lanOrigins: [] }
      const body = (await res.json()) as { lanOrigins?: unknown }
      const origins = Array.isArray(body.lanOrigins) ? body.lanOrigins.filter(isHttpOrigin) : []
      return { lanOrigins: origins.map((o) => new URL(o).origin) }
    })
    .catch(() => ({ lanOrigins: [] }))
  return cached
}

/** Is this origin only reachable from this computer? */
export function isLoopbackOrigin(origin: string): boolean {
  const host = new URL(origin).hostname
  return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.')
}
