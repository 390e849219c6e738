/** What an owner's action on the room's members can fail with (members.ts). */

/** Not an owner of this room (or no longer one): only owners admit, remove and reset. */
export class NotOwnerError extends Error {
  override name = 'NotOwnerError'
  constructor(what: string) {
    super(`only the room's owners can ${what}`)
  }
}

/** No such member to remove or reset. */
export class UnknownMemberError extends Error {
  override name = 'UnknownMemberError'
}
