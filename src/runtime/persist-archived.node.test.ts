/**
 * Who wrote archived records, kept across restarts in an agent's data
 * directory (persist.node.ts): a rekey made after a restart still keeps a
 * removed member's archived work (store.ts heldBy).
 */
import { appendFile, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { filePersistence } from './persist.node'

describe('archived authors in a file', () => {
  it('come back after a restart; a torn last line is skipped', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'archived-by-')), 'records.bin')
    const first = filePersistence(path)
    await first.saveArchivedAuthors!([
      { from: '12D3KooWRem', kind: 'result', ids: ['a'.repeat(32), 'b'.repeat(32)] },
      { from: '12D3KooWOther', kind: 'claim', ids: ['c'.repeat(32)] },
    ])
    await first.saveArchivedAuthors!([
      { from: '12D3KooWRem', kind: 'claim', ids: ['d'.repeat(32)] },
    ])
    await first.close?.()
    await appendFile(`${path}.archived-by`, '{"from":"12D3KooWRem","ki')
    const again = await filePersistence(path).loadArchivedAuthors!()
    expect(again).toEqual([
      { from: '12D3KooWRem', kind: 'result', ids: ['a'.repeat(32), 'b'.repeat(32)] },
      { from: '12D3KooWOther', kind: 'claim', ids: ['c'.repeat(32)] },
      { from: '12D3KooWRem', kind: 'claim', ids: ['d'.repeat(32)] },
    ])
  })
})
