/**
 * The core owns its contracts: protocol, plan and roles (and the simulator
 * that drives them) import nothing from the LLM, network, runtime or UI
 * layers. A test, so a convenient import cannot quietly turn the arrow.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '..')
const CORE = ['protocol', 'plan', 'roles', 'sim']
const OUTER = ['llm', 'net', 'runtime', 'worker', 'ui', 'cli']

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

describe('layers', () => {
  it.each(CORE)('src/%s imports no outer layer', (layer) => {
    const offending: string[] = []
    for (const file of sources(join(SRC, layer))) {
      const text = readFileSync(file, 'utf8')
      for (const [, spec] of text.matchAll(/from '(\.\.?\/[^']+)'/g)) {
        const target = relative(SRC, join(file, '..', spec!)).split('/')[0]!
        if (OUTER.includes(target)) offending.push(`${relative(SRC, file)} → ${spec}`)
      }
    }
    expect(offending).toEqual([])
  })
})
