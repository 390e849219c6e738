/**
 * Checks the sandbox worker's lockdown in a real worker: locks itself down
 * as sandbox.worker.ts does, then reports what is left and whether fetch and
 * importScripts still work.
 */
import { LOCKED_GLOBALS, LOCKED_NAVIGATOR, lockDown } from '../../src/sandbox/lockdown.browser'

export interface LockdownReport {
  /** what lockDown says is still reachable */
  left: string[]
  /** typeof of each locked name afterwards */
  types: Record<string, string>
  fetch: string
  importScripts: string
}

const before = Object.fromEntries(
  LOCKED_GLOBALS.map((name) => [name, typeof (self as unknown as Record<string, unknown>)[name]]),
)
const left = lockDown(self)
const global = self as unknown as Record<string, unknown>
const navigator = global.navigator as Record<string, unknown>
const types: Record<string, string> = {}
for (const name of LOCKED_GLOBALS) types[name] = typeof global[name]
for (const name of LOCKED_NAVIGATOR) types[`navigator.${name}`] = typeof navigator[name]

function attempt(action: () => unknown): string {
  try {
    action()
    return 'ran'
  } catch (error) {
    return error instanceof Error ? error.name : String(error)
  }
}

self.postMessage({
  before,
  left,
  types,
  fetch: attempt(() => (global.fetch as (url: string) => unknown)('/')),
  importScripts: attempt(() => (global.importScripts as (url: string) => unknown)('/x.js')),
})
