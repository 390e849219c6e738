/** An executor's capability toggles, remembered in this browser between sessions. */
import { CAPABILITIES, type Capability } from '../../llm/types'

const KEY = 'murmuration:capabilities'

export function loadCapabilities(): Capability[] {
  try {
    const raw = localStorage.getItem(KEY)
    if (raw === null) return [...CAPABILITIES]
    const parsed = JSON.parse(raw) as unknown
    if (!Array.isArray(parsed)) return [...CAPABILITIES]
    return CAPABILITIES.filter((c) => parsed.includes(c))
  } catch {
    return [...CAPABILITIES]
  }
}

export function saveCapabilities(capabilities: readonly Capability[]): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(capabilities))
  } catch {
    // not remembered; the running executor still uses them
  }
}
