/**
 * The agent's member flags, checked (part of agent-options.ts's parsing):
 * --new-room (a room whose maker is its owner), --name (that maker's name),
 * and an owner's one-off actions --invite-person (with --co-owner),
 * --remove-member and --reset-invite. Pure.
 */
import { isOwnersLink, type MemberInvite } from '../protocol/invite'
import { MAX_MEMBER_NAME } from '../protocol/limits'
import { deriveMemberKey, memberPublicKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret, ROOM_NAME_PATTERN } from '../protocol/room-key'
import { UsageError } from './options'

/** An owner's (or co-owner's) one-off change to the room's members (then the agent exits). */
export type ManageAction =
  | { kind: 'invite-person'; name: string; coOwner?: true }
  | { kind: 'remove-member'; who: string }
  | { kind: 'reset-invite'; who: string }

/** The member flags as parseArgs gives them. */
export interface MemberFlags {
  'new-room'?: string
  name?: string
  'co-owner'?: boolean
  'invite-person'?: string
  'remove-member'?: string
  'reset-invite'?: string
  'wait-for-peer'?: string
  invite?: string
}

/**
 * How long an owner's one-off action waits for a peer of the room to take
 * what it published (a sync with one that ended after it): long enough for
 * the owner's own tab or agent to be started meanwhile, short enough for a
 * command in a script.
 */
export const MANAGE_WAIT_S = 60
/** The most --wait-for-peer accepts: an hour. */
const MAX_MANAGE_WAIT_S = 3_600

/** --wait-for-peer SECONDS, checked (with an owner's action only): in ms; default MANAGE_WAIT_S. */
export function manageWaitMs(flags: MemberFlags, action: ManageAction | undefined): number {
  const given = flags['wait-for-peer']
  if (given === undefined) return MANAGE_WAIT_S * 1000
  if (!action)
    throw new UsageError(
      '--wait-for-peer goes with --invite-person, --remove-member or --reset-invite',
    )
  const seconds = Number(given)
  if (!/^\d+$/.test(given.trim()) || seconds > MAX_MANAGE_WAIT_S)
    throw new UsageError(
      `--wait-for-peer must be 0 to ${MAX_MANAGE_WAIT_S} seconds, got "${given}"`,
    )
  return seconds * 1000
}

/** --name, checked: 1 to MAX_MEMBER_NAME characters, trimmed; undefined when not given. */
export function ownName(flags: MemberFlags): string | undefined {
  if (flags.name === undefined) return undefined
  const name = flags.name.trim()
  if (!name || name.length > MAX_MEMBER_NAME)
    throw new UsageError(`--name must be 1 to ${MAX_MEMBER_NAME} characters`)
  return name
}

/** --new-room ROOM [--name NAME]: a fresh room whose maker (this link) is its owner. */
export function newRoomInvite(flags: MemberFlags & { 'new-room': string }): {
  invite: Omit<MemberInvite, 'stable'>
  name?: string
} {
  const room = flags['new-room'].trim()
  if (!ROOM_NAME_PATTERN.test(room))
    throw new UsageError(
      `--new-room must be 1 to 63 lowercase letters, digits and dashes (not first), got "${room}"`,
    )
  if (flags.invite !== undefined) throw new UsageError('give --new-room or --invite, not both')
  const name = ownName(flags)
  // the maker owns the room: the link printed is the owner's own
  const me = newMemberSeed()
  return {
    invite: { room: deriveRoomKey(room, newRoomSecret()), owner: deriveMemberKey(me).id, me },
    ...(name !== undefined ? { name } : {}),
  }
}

/**
 * --name with an invite: only the room's maker names itself (its own admit);
 * everyone else's name is the one their inviter gave.
 */
export function ownNameFor(flags: MemberFlags, invite: MemberInvite): string | undefined {
  const name = ownName(flags)
  if (name !== undefined && !isOwnersLink(invite))
    throw new UsageError(
      '--name is for the owner’s own link: a member’s name is the one whoever invited them gave',
    )
  return name
}

/** --invite-person (and --co-owner), --remove-member or --reset-invite, checked; at most one of them. */
export function manageAction(flags: MemberFlags): ManageAction | undefined {
  const given = (['invite-person', 'remove-member', 'reset-invite'] as const).filter(
    (flag) => flags[flag] !== undefined,
  )
  if (given.length > 1) throw new UsageError(`give one of --${given.join(', --')}, not several`)
  const flag = given[0]
  if (flags['co-owner'] && flag !== 'invite-person')
    throw new UsageError('--co-owner goes with --invite-person NAME')
  if (flag === undefined) return undefined
  const value = flags[flag]!.trim()
  const id = flag !== 'invite-person' && memberPublicKey(value) !== null
  if (!value || (value.length > MAX_MEMBER_NAME && !id))
    throw new UsageError(
      `--${flag} must be a name of 1 to ${MAX_MEMBER_NAME} characters, or a member id`,
    )
  if (flag !== 'invite-person') return { kind: flag, who: value }
  return { kind: flag, name: value, ...(flags['co-owner'] ? { coOwner: true as const } : {}) }
}
