/**
 * docs/PROTOCOL.md names the versions the code speaks. A bump that forgets a
 * line of the document (test-vectors.json's `about` once named an old sync
 * protocol, §3.3 an old record version) leaves a peer written from the
 * document unable to talk to this one: this test fails instead.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SYNC_PROTOCOL } from '../../src/net/constants'
import { PROTOCOL_VERSION } from '../../src/protocol/schemas'
import { roomTopics } from '../../src/protocol/topics'

const doc = readFileSync(new URL('../../docs/PROTOCOL.md', import.meta.url), 'utf8')
const vectors = JSON.parse(
  readFileSync(new URL('../../docs/test-vectors.json', import.meta.url), 'utf8'),
) as { about: string }

/** The version in the topics' names: `murmuration/<n>/…`. */
const topicVersion = Number(roomTopics('x').plan.split('/')[1])

describe('docs/PROTOCOL.md names the versions the code uses', () => {
  it('its title, topics and sync protocol', () => {
    expect(doc.split('\n')[0]).toBe(`# The Murmuration wire protocol, version ${topicVersion}`)
    const plan = roomTopics('<transport id>')
    expect(doc).toContain(`| \`${plan.plan}\``)
    expect(doc).toContain(`| \`${plan.presence}\``)
    expect(doc).toMatch(new RegExp(`^## 7\\. .*\\(\`${SYNC_PROTOCOL}\`\\)$`, 'm'))
  })

  it('the record version every record carries (§3.3)', () => {
    expect(doc).toContain(`Every record has \`v\` (${PROTOCOL_VERSION}),`)
    expect(doc).toMatch(new RegExp(`\\| \`v\` +\\| the integer ${PROTOCOL_VERSION}\\b`))
  })

  it('test-vectors.json says which versions its answers are for', () => {
    expect(vectors.about).toContain(`records v${PROTOCOL_VERSION},`)
    expect(vectors.about).toContain(`topics murmuration/${topicVersion}/…`)
    expect(vectors.about).toContain(`sync ${SYNC_PROTOCOL}.`)
  })
})
