/**
 * lockDown on made-up scopes: what it removes, where it looks, and that it
 * reports what it could not remove. (e2e/sandbox.spec.ts checks a real
 * Chromium worker.)
 */
import { describe, expect, it } from 'vitest'
import { lockDown } from './lockdown.browser'

describe('lockDown', () => {
  it('removes the globals from the scope and its prototypes, and navigator properties', () => {
    const prototype = { fetch: () => 'net', importScripts: () => 'code' }
    const scope = Object.assign(Object.create(prototype) as Record<string, unknown>, {
      WebSocket: class {},
      indexedDB: {},
      postMessage: () => 'kept',
      navigator: Object.assign(Object.create({ storage: {}, locks: {} }) as object, {
        userAgent: 'kept',
      }),
    })
    expect(lockDown(scope)).toEqual([])
    for (const name of ['fetch', 'importScripts', 'WebSocket', 'indexedDB'])
      expect(typeof scope[name]).toBe('undefined')
    const navigator = scope.navigator as Record<string, unknown>
    expect([typeof navigator.storage, typeof navigator.locks]).toEqual(['undefined', 'undefined'])
    expect([typeof scope.postMessage, navigator.userAgent]).toEqual(['function', 'kept'])
  })

  it('blanks what cannot be deleted, and reports what it cannot blank', () => {
    const scope = {} as Record<string, unknown>
    Object.defineProperty(scope, 'fetch', {
      value: () => 'net',
      writable: true,
      configurable: false,
    })
    Object.defineProperty(scope, 'caches', { value: {}, writable: false, configurable: false })
    expect(lockDown(scope)).toEqual(['caches'])
    expect(scope.fetch).toBeUndefined()
  })
})
