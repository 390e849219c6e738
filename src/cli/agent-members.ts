/**
 * An agent's side of the room's members: an owner's (or co-owner's) one-off
 * actions (--invite-person [--co-owner], --remove-member, --reset-invite: do
 * it, print, exit) and
 * the watch that stops an agent whose member was removed, with the tab's
 * own sentence and a non-zero exit.
 */
import { memberInviteLink } from '../protocol/invite'
import { removedSentence } from '../runtime/members-view'
import type { MembersView, PeerRuntime, PersonInvite } from '../runtime/types'
import type { AgentOptions, ManageAction } from './agent-options'
import { MANAGE_WAIT_S } from './agent-member-options'
import { clock } from './observer-print'

/** A removed agent's exit code: it did not stop because it was asked to. */
export const EXIT_REMOVED = 3
/**
 * How long an owner's action waits to hear the room (a sync with a peer)
 * before it acts on what this agent holds: the membership it reads (who is
 * in, the current epoch) must be the room's, not an empty store's.
 */
export const MANAGE_SYNC_WAIT_MS = 20_000
/** How often an action waiting for a peer tries a sync round again. */
const TAKE_RETRY_MS = 1_000

/** The member a name or id names: the one active member with that id, else with that name. */
export function findMember(view: MembersView, who: string): string {
  const active = view.members.filter((m) => !m.removed)
  const byId = active.find((m) => m.id === who)
  if (byId) return byId.id
  const named = active.filter((m) => m.name === who)
  if (named.length === 1) return named[0]!.id
  if (named.length > 1)
    throw new Error(
      `${named.length} members are called “${who}”: give a member id (${named.map((m) => m.id).join(', ')})`,
    )
  const names = active.map((m) => `“${m.name}”`).join(', ')
  throw new Error(`no member “${who}” in this room (members: ${names})`)
}

/** The link of a person's invite, on the app the agent uses. */
export function personLink(
  options: AgentOptions,
  runtime: PeerRuntime,
  invite: PersonInvite,
): string {
  return memberInviteLink(
    options.app.origin,
    { room: runtime.roomKey(), owner: options.member.owner, me: invite.seed },
    'executor',
  )
}

/** Time after the first link for its sync (started at once by the link) to bring the room's records. */
const SYNC_SETTLE_MS = 2_000

/** Waits for a link to a peer (or MANAGE_SYNC_WAIT_MS) and its sync, so the membership read is the room's. */
async function heardTheRoom(runtime: PeerRuntime): Promise<boolean> {
  const end = Date.now() + MANAGE_SYNC_WAIT_MS
  while (Date.now() < end) {
    const c = runtime.connections()
    if (c.direct + c.other > 0) {
      await new Promise((r) => setTimeout(r, SYNC_SETTLE_MS))
      return true
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  return false
}

/**
 * Waits (up to `waitMs`) for a peer of the room to take what this agent
 * holds: a sync round after the action that a peer answered. False when
 * none did in time.
 */
async function takenByPeer(
  runtime: PeerRuntime,
  waitMs: number,
  dataDir: string,
): Promise<boolean> {
  const end = Date.now() + waitMs
  let said = false
  for (;;) {
    if ((await runtime.syncRound()) > 0) return true
    if (Date.now() >= end) return false
    if (!said) {
      said = true
      process.stderr.write(
        `agent: no peer of the room answered yet: waiting up to ${Math.round(waitMs / 1000)} s for one to take it (it is kept in ${dataDir} meanwhile)\n`,
      )
    }
    await new Promise((r) => setTimeout(r, Math.min(TAKE_RETRY_MS, Math.max(0, end - Date.now()))))
  }
}

/**
 * Does `action` and says what it did, then waits for a peer to take it and
 * says whether one did (`dataDir`: where it stays if not); throws with what
 * went wrong. Resolves with whether a peer took it.
 */
export async function manage(
  runtime: PeerRuntime,
  options: AgentOptions,
  action: ManageAction,
  dataDir: string,
): Promise<boolean> {
  if (!(await heardTheRoom(runtime)))
    process.stderr.write(
      'agent: warning: no peer of the room answered yet; acting on what this agent holds\n',
    )
  const view = runtime.members()
  if (!view?.manage)
    throw new Error("only the room's owners can do that: this link is not an owner's")
  if (action.kind === 'invite-person') {
    const made = await runtime.invitePerson(action.name, action.coOwner === true)
    // the link alone on stdout (for `$(…)`), what it is on stderr
    console.log(personLink(options, runtime, made))
    process.stderr.write(
      `agent: invited “${made.name}”${action.coOwner ? ' as a co-owner' : ''} (member ${made.member}): give them this link\n`,
    )
  } else if (action.kind === 'remove-member') {
    const member = findMember(view, action.who)
    const name = view.members.find((m) => m.id === member)?.name
    await runtime.removeMember(member)
    console.log(
      `removed “${name}” (member ${member}): the room moved to epoch ${runtime.members()?.epoch}`,
    )
  } else {
    const member = findMember(view, action.who)
    const made = await runtime.resetInvite(member)
    console.log(personLink(options, runtime, made))
    process.stderr.write(
      `agent: reset “${made.name}”'s invite link: the old one finds nothing new; give them this new link\n`,
    )
  }
  if (await takenByPeer(runtime, options.manageWaitMs ?? MANAGE_WAIT_S * 1000, dataDir)) {
    process.stderr.write('agent: a peer of the room took it: the room has it now\n')
    return true
  }
  process.stderr.write(
    `agent: no peer of the room took it: it is kept in ${dataDir} and goes out the next time an agent runs with --data ${dataDir} and meets a peer of the room\n`,
  )
  return false
}

/** Stops the agent, in words and with EXIT_REMOVED, once its member is removed. */
export function exitWhenRemoved(runtime: PeerRuntime, stop: () => Promise<void>): void {
  const check = (view: MembersView | null) => {
    if (!view?.removed) return
    process.stderr.write(`agent: ${removedSentence(runtime.room, view.removed, clock)}\n`)
    void stop().finally(() => process.exit(EXIT_REMOVED))
  }
  runtime.on('members', check)
  check(runtime.members())
}
