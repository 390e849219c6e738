/**
 * The Ed25519 rules (PROTOCOL §3.1) in real Chromium: on every edge vector
 * (ed25519-vectors.test-support.ts), a tab's checks give the verdict a Node
 * peer's do, and on what the rules let through, Chromium's WebCrypto
 * (BoringSSL) alone agrees too: it checks the same cofactorless equation. A
 * tab and an agent can never disagree on whether a record is signed.
 */
import { expect } from '@playwright/test'
import { acceptableSignature, strictVerify } from '../src/protocol/ed25519'
import { edgeVectors, MESSAGE } from '../src/protocol/ed25519-vectors.test-support'
import { nodeVerify } from '../src/protocol/verify.node'
import { harnessUrl } from './fixtures/net'
import type { Ed25519Harness } from './harness/ed25519'
import { test } from './fixtures/workers'

test('a tab and a Node peer give every edge-case signature the same verdict', async ({ page }) => {
  // the harness pages the global setup built and serves (on 127.0.0.1: a secure context)
  await page.goto(new URL('ed25519.html', harnessUrl()).href)
  await expect(page.locator('#state')).toHaveText('ready')
  const vectors = edgeVectors()
  expect(vectors.length).toBeGreaterThan(12)
  let acceptedSomewhere = 0
  for (const v of vectors) {
    const acceptable = acceptableSignature(v.signature, v.publicKey)
    const node = acceptable && nodeVerify(v.signature, MESSAGE, v.publicKey)
    expect(acceptable && strictVerify(v.signature, MESSAGE, v.publicKey), v.name).toBe(node)
    const tab = await page.evaluate(
      ([s, m, k]) => (window.ed25519Harness as Ed25519Harness).verdicts(s, m, k),
      [[...v.signature], [...MESSAGE], [...v.publicKey]] as [number[], number[], number[]],
    )
    console.log(`ed25519 e2e: ${v.name}: node ${node}, tab ${JSON.stringify(tab)}`)
    expect(tab.verifyAsync, v.name).toBe(node)
    expect(tab.strict, v.name).toBe(node)
    // what the rules let through, BoringSSL judges alike: the same cofactorless equation
    if (acceptable) expect(tab.webCrypto, v.name).toBe(node)
    if (node) acceptedSomewhere++
  }
  // the ordinary signature and one mixed-order key pass; everything else fails everywhere
  expect(acceptedSomewhere).toBe(2)
})
