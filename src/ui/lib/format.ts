/** Small, pure formatting helpers shared by the components. */

/**
 * A PeerId as people can tell apart: every Ed25519 PeerId starts with the
 * same "12D3KooW", so the tail is what differs.
 */
export function shortPeer(peerId: string): string {
  return peerId.length <= 8 ? peerId : `…${peerId.slice(-6)}`
}

/** A stable hue per peer, so the same peer has the same colour dot everywhere. */
export function peerHue(peerId: string): number {
  let hash = 0
  for (let i = 0; i < peerId.length; i++) hash = (hash * 31 + peerId.charCodeAt(i)) >>> 0
  return hash % 360
}

export function formatTokens(n: number): string {
  if (n < 1_000) return String(n)
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

/** Dollars (for a cost that may be partly unknown, see formatCostSum). */
/**
 * A cost that may be partly unknown: `unpriced` calls were made with models
 * that have no known price, so `usd` is only what the priced calls cost.
 * Never "$0" for a cost we do not know.
 */
export function formatCostSum(usd: number, unpriced: number): string {
  if (unpriced === 0) return formatCost(usd)
  return usd === 0 ? 'unknown' : `${formatCost(usd)} + unknown`
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0'
  if (usd < 0.01) return '< $0.01'
  return `$${usd.toFixed(2)}`
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`
  if (m > 0) return `${m} min ${String(s).padStart(2, '0')} s`
  return `${s} s`
}

export function formatClock(at: number): string {
  return new Date(at).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
}

export function formatScore(score: number | null): string {
  return score === null ? '–' : score.toFixed(2)
}

/** "1 leaf", "2 leaves" */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`
}

/** A file name from a goal's text: "plan-a-two-week-trip-to-japan". */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
  return s || 'plan'
}
