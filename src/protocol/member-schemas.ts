/**
 * zod schemas of the member records (since version 7: `bind`, `admit`,
 * `rekey`; docs/PROTOCOL.md §0.1, §3.3). schemas.ts makes them with its own
 * record header and field types (memberSchemas below), so that every record
 * shares one definition of them without an import cycle.
 */
import { z } from './zod'
import { base64urlPattern } from './base64url'
import * as L from './limits'
import {
  BOX_NONCE_BYTES,
  MEMBER_KEY_BYTES,
  SEALED_SECRET_BYTES,
  SIGNATURE_BYTES,
} from './member-key'

/** What every record schema shares, from schemas.ts. */
export interface SchemaBase<H extends z.ZodRawShape> {
  /** v, id, room, from */
  header: H
  idSchema: z.ZodString
  timeSchema: z.ZodNumber
  nonEmpty: (max: number) => z.ZodType<string>
}

/** Canonical base64url of exactly `bytes` bytes (one text per value: base64url.ts). */
const base64url = (bytes: number, what: string) =>
  z.string().regex(new RegExp(base64urlPattern(bytes)), `not ${what}`)
/** A member id: the base64url of its Ed25519 public key (member-key.ts). */
export const memberIdSchema = base64url(MEMBER_KEY_BYTES, 'a member id')
/** Strictly ascending: a set with one canonical encoding. */
const ascending = (list: readonly string[]) => list.every((x, i) => i === 0 || list[i - 1]! < x)

export function memberSchemas<H extends z.ZodRawShape>({
  header,
  idSchema,
  timeSchema,
  nonEmpty,
}: SchemaBase<H>) {
  /**
   * Since version 7. This PeerId (`from`) acts for member `member`: `sig` is
   * the member key's Ed25519 signature over UTF-8
   * `murmuration/bind/1\n<room>\n<from>` (validate.ts checks it).
   */
  const bindSchema = z.strictObject({
    ...header,
    kind: z.literal('bind'),
    member: memberIdSchema,
    sig: base64url(SIGNATURE_BYTES, 'an Ed25519 signature'),
  })

  /**
   * Since version 7. An owner admits a person: their member id, their X25519
   * box key (rekeys seal new secrets to it), the name people see, and whether
   * they are a co-owner. Counts only when its author is bound to an owner
   * (membership.ts).
   */
  const admitSchema = z.strictObject({
    ...header,
    kind: z.literal('admit'),
    member: memberIdSchema,
    box: base64url(MEMBER_KEY_BYTES, 'an X25519 public key'),
    name: nonEmpty(L.MAX_MEMBER_NAME),
    coOwner: z.boolean(),
    at: timeSchema,
  })

  const rekeyBoxSchema = z.strictObject({
    member: memberIdSchema,
    nonce: base64url(BOX_NONCE_BYTES, 'a 24-byte nonce'),
    sealed: base64url(SEALED_SECRET_BYTES, 'a sealed 16-byte secret'),
  })

  /**
   * Since version 7. An owner moves the room to epoch `epoch`: `removed` are
   * out for good, each box seals the new epoch's secret to one remaining
   * member (member-key.ts). `prev` is the rekey of epoch `epoch - 1` it
   * follows (null for epoch 1), so a chain of rekeys is a pure function of the
   * record set (membership.ts). Since version 8, `kept` lists the ids of the
   * removed members' records that keep counting (sorted, unique): the
   * remover's whole holding of them; anything else of theirs counts for nothing.
   */
  const rekeySchema = z
    .strictObject({
      ...header,
      kind: z.literal('rekey'),
      epoch: z.number().int().min(1).max(L.MAX_ROOM_EPOCH),
      prev: idSchema.nullable(),
      removed: z.array(memberIdSchema).min(1).max(L.MAX_MEMBERS),
      reason: z.enum(['remove', 'reset']),
      eph: base64url(MEMBER_KEY_BYTES, 'an X25519 public key'),
      boxes: z.array(rekeyBoxSchema).max(L.MAX_MEMBERS),
      kept: z.array(idSchema).max(L.MAX_KEPT),
      at: timeSchema,
    })
    .superRefine((value, ctx) => {
      // the header's fields are generic here; these four are this schema's own
      const rekey = value as unknown as {
        epoch: number
        prev: string | null
        removed: string[]
        boxes: { member: string }[]
        kept: string[]
      }
      if ((rekey.epoch === 1) !== (rekey.prev === null))
        ctx.addIssue({ code: 'custom', message: 'prev is null exactly for epoch 1' })
      if (!ascending(rekey.removed))
        ctx.addIssue({ code: 'custom', message: 'removed is not sorted and unique' })
      const boxed = rekey.boxes.map((box) => box.member)
      if (!ascending(boxed))
        ctx.addIssue({ code: 'custom', message: 'boxes are not sorted by member and unique' })
      if (boxed.some((member) => rekey.removed.includes(member)))
        ctx.addIssue({ code: 'custom', message: 'a removed member has a box' })
      if (!ascending(rekey.kept))
        ctx.addIssue({ code: 'custom', message: 'kept is not sorted and unique' })
    })
  return { bindSchema, admitSchema, rekeyBoxSchema, rekeySchema }
}
