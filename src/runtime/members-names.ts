/**
 * The names a room's people go by when nobody gave one: the owner's own
 * admit ("Owner", unless the person said their name when making the room)
 * and people invited without a name ("Guest 1", "Guest 2", …). Pure.
 */

/** The root owner's name in its own admit when none is given (and in views before that admit is heard). */
export const DEFAULT_OWNER_NAME = 'Owner'

/** The first "Guest N" that no one in `taken` is called. */
export function guestName(taken: Iterable<string | null>): string {
  const names = new Set(taken)
  let n = 1
  while (names.has(`Guest ${n}`)) n++
  return `Guest ${n}`
}
