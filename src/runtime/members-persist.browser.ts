/**
 * A room's member data in IndexedDB (idb-keyval), one database per stable
 * room id, shared by the origin's tabs of that room: `epoch:<n>:<rekey id>` → secret,
 * `invite:<member id>` → the invite. One key per entry, so two tabs saving
 * at once never overwrite each other's.
 */
import { createStore, entries, set, type UseStore } from 'idb-keyval'
import {
  cleanSaved,
  type MembersPersistence,
  type SavedEpoch,
  type SavedInvite,
} from './members-persist'

export function indexedDbMembers(stableRoomId: string): MembersPersistence {
  const store: UseStore = createStore(`murmuration-members-${stableRoomId}`, 'members')
  return {
    async load() {
      const rows = await entries<string, unknown>(store)
      return cleanSaved({
        epochs: rows.filter(([k]) => k.startsWith('epoch:')).map(([, v]) => v),
        invites: rows.filter(([k]) => k.startsWith('invite:')).map(([, v]) => v),
      })
    },
    async saveEpoch(epoch: SavedEpoch) {
      await set(`epoch:${epoch.epoch}:${epoch.rekey ?? ''}`, { ...epoch }, store)
    },
    async saveInvite(invite: SavedInvite) {
      await set(`invite:${invite.member}`, { ...invite }, store)
    },
  }
}
