/**
 * What a peer keeps of its room's members across reloads and restarts:
 * the epoch secrets it has held (the link's first one, and each one opened
 * from a rekey box or made by this owner), and, for an owner, the people it
 * invited (name and member seed, so the Invite panel can show each person's
 * link again). IndexedDB per room in a tab (members-persist.browser.ts,
 * shared by the origin's tabs of that room), a JSON file in an agent's data
 * directory (members-persist.node.ts), memory in tests.
 *
 * Entries are keyed so that two tabs writing at once never lose each
 * other's: an epoch by its number, an invite by its member id. Values are
 * base64url strings (the link's own encoding).
 */

/** One epoch's secret, as this peer learned it. */
export interface SavedEpoch {
  epoch: number
  /** base64url, no padding */
  secret: string
  /** the rekey record that made it (absent for a link's key) */
  rekey?: string
}

/** A person this owner invited: enough to show their link again. */
export interface SavedInvite {
  /** the member id the seed makes */
  member: string
  name: string
  /** base64url member seed, as the link's `me=` */
  seed: string
  /** when it was made (ms, this peer's clock) */
  at: number
}

export interface SavedMembers {
  epochs: SavedEpoch[]
  invites: SavedInvite[]
}

export interface MembersPersistence {
  load(): Promise<SavedMembers>
  saveEpoch(epoch: SavedEpoch): Promise<void>
  saveInvite(invite: SavedInvite): Promise<void>
}

export const NO_SAVED_MEMBERS: SavedMembers = Object.freeze({ epochs: [], invites: [] })

/** Keeps only well-formed entries (storage written by hand or by another version is skipped). */
export function cleanSaved(value: unknown): SavedMembers {
  const v = (value ?? {}) as { epochs?: unknown; invites?: unknown }
  const epochs = (Array.isArray(v.epochs) ? v.epochs : []).filter(
    (e): e is SavedEpoch =>
      typeof e === 'object' &&
      e !== null &&
      Number.isInteger((e as SavedEpoch).epoch) &&
      (e as SavedEpoch).epoch >= 0 &&
      typeof (e as SavedEpoch).secret === 'string',
  )
  const invites = (Array.isArray(v.invites) ? v.invites : []).filter(
    (i): i is SavedInvite =>
      typeof i === 'object' &&
      i !== null &&
      typeof (i as SavedInvite).member === 'string' &&
      typeof (i as SavedInvite).name === 'string' &&
      typeof (i as SavedInvite).seed === 'string' &&
      typeof (i as SavedInvite).at === 'number',
  )
  return { epochs, invites }
}

/** Adds or replaces (same epoch and rekey, same member) entries; order: epochs ascending, invites by time. */
export function mergeSaved(base: SavedMembers, more: Partial<SavedMembers>): SavedMembers {
  const epochs = new Map(base.epochs.map((e) => [`${e.epoch} ${e.rekey ?? ''}`, e]))
  for (const e of more.epochs ?? []) epochs.set(`${e.epoch} ${e.rekey ?? ''}`, e)
  const invites = new Map(base.invites.map((i) => [i.member, i]))
  for (const i of more.invites ?? []) invites.set(i.member, i)
  return {
    epochs: [...epochs.values()].sort((a, b) => a.epoch - b.epoch),
    invites: [...invites.values()].sort((a, b) => a.at - b.at),
  }
}

export function memoryMembersPersistence(
  initial: SavedMembers = NO_SAVED_MEMBERS,
): MembersPersistence & { saved: SavedMembers } {
  const store = {
    saved: mergeSaved(NO_SAVED_MEMBERS, initial),
    async load() {
      return structuredClone(store.saved)
    },
    async saveEpoch(epoch: SavedEpoch) {
      store.saved = mergeSaved(store.saved, { epochs: [epoch] })
    },
    async saveInvite(invite: SavedInvite) {
      store.saved = mergeSaved(store.saved, { invites: [invite] })
    },
  }
  return store
}
