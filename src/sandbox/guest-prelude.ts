/**
 * What the guest gets beyond the ECMAScript built-ins, written in JavaScript
 * and evaluated inside QuickJS before the program:
 *
 * - `console`: formats arguments much like Node's console (strings bare,
 *   objects as `{ a: 1 }`, nested strings quoted) and hands each line to one
 *   host function, `write(stream, text, fullLength) -> room left`. The guest
 *   slices a line to the room left before it crosses into the host, so a
 *   huge string is never copied out; the host still enforces the cap.
 * - Timers in virtual time: `setTimeout`, `setInterval`, their `clear…` and
 *   `queueMicrotask`. Nothing waits: once the script and its promise jobs
 *   are done, the host fires the earliest timer, runs the jobs that follow,
 *   and so on (`runNextTimer`), so `await new Promise((r) => setTimeout(r,
 *   1000))` resolves at once, in order. The time limit still holds.
 *
 * The source is an expression whose value is the installer: the host calls it
 * with `write` and the caps, so `write` is never a global the program sees;
 * it returns `runNextTimer` (true while a timer fired).
 */
export const GUEST_PRELUDE_SOURCE = String.raw`(function install(write, outRoom, errRoom) {
  'use strict'
  const room = [outRoom, errRoom]
  const MAX_DEPTH = 3
  const MAX_ITEMS = 100
  const quote = (s) => JSON.stringify(s)
  const key = (k) => (typeof k === 'symbol' ? '[' + String(k) + ']' : /^[A-Za-z_$][\w$]*$/.test(k) ? k : quote(k))
  function inspect(value, depth, seen) {
    switch (typeof value) {
      case 'string': return depth === 0 ? value : quote(value)
      case 'bigint': return String(value) + 'n'
      case 'symbol': return String(value)
      case 'function': return '[Function: ' + (value.name || 'anonymous') + ']'
      case 'object': break
      default: return Object.is(value, -0) ? '-0' : String(value)
    }
    if (value === null) return 'null'
    if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\n' + String(value.stack).trimEnd() : String(value)
    if (seen.includes(value)) return '[Circular]'
    if (value instanceof Date) return isNaN(value) ? 'Invalid Date' : value.toISOString()
    if (value instanceof RegExp) return String(value)
    const nested = seen.concat([value])
    const more = (n) => (n > MAX_ITEMS ? ['... ' + (n - MAX_ITEMS) + ' more items'] : [])
    let open = '{', close = '}', parts
    if (depth > MAX_DEPTH) return Array.isArray(value) ? '[Array]' : '[Object]'
    if (Array.isArray(value) || ArrayBuffer.isView(value)) {
      open = '['; close = ']'
      const items = Array.prototype.slice.call(value, 0, MAX_ITEMS)
      parts = items.map((v) => inspect(v, depth + 1, nested)).concat(more(value.length))
      if (!Array.isArray(value)) open = value.constructor.name + '(' + value.length + ') ['
    } else if (value instanceof Map) {
      open = 'Map(' + value.size + ') {'
      parts = Array.from(value).slice(0, MAX_ITEMS)
        .map(([k, v]) => inspect(k, depth + 1, nested) + ' => ' + inspect(v, depth + 1, nested))
        .concat(more(value.size))
    } else if (value instanceof Set) {
      open = 'Set(' + value.size + ') {'
      parts = Array.from(value).slice(0, MAX_ITEMS).map((v) => inspect(v, depth + 1, nested)).concat(more(value.size))
    } else if (value instanceof Promise) {
      return 'Promise {}'
    } else {
      const keys = Reflect.ownKeys(value).filter((k) => Object.prototype.propertyIsEnumerable.call(value, k))
      parts = keys.slice(0, MAX_ITEMS).map((k) => key(k) + ': ' + inspect(value[k], depth + 1, nested)).concat(more(keys.length))
    }
    if (parts.length === 0) return open + close
    const line = open + ' ' + parts.join(', ') + ' ' + close
    return line.length <= 72 ? line : open + '\n' + parts.map((p) => '  ' + p.split('\n').join('\n  ')).join(',\n') + '\n' + close
  }
  const format = (args) => args.map((a) => inspect(a, 0, [])).join(' ') + '\n'
  function emit(stream, args) {
    const text = format(args)
    room[stream] = write(stream, room[stream] > 0 ? text.slice(0, room[stream]) : '', text.length)
  }
  const out = (...args) => emit(0, args)
  const err = (...args) => emit(1, args)
  const console = { log: out, info: out, debug: out, warn: err, error: err }
  const fixed = (value) => ({ value, writable: false, configurable: false })
  Object.defineProperty(globalThis, 'console', fixed(Object.freeze(console)))

  const timers = []
  let lastId = 0
  let order = 0
  let now = 0
  function schedule(fn, ms, args, repeat) {
    if (typeof fn !== 'function') throw new TypeError('a timer needs a function')
    const delay = Math.max(0, Number(ms) || 0)
    const timer = { id: ++lastId, at: now + delay, order: order++, fn, args, every: repeat ? Math.max(1, delay) : 0 }
    timers.push(timer)
    return timer.id
  }
  function clear(id) {
    const i = timers.findIndex((t) => t.id === id)
    if (i >= 0) timers.splice(i, 1)
  }
  Object.defineProperties(globalThis, {
    setTimeout: fixed((fn, ms, ...args) => schedule(fn, ms, args, false)),
    setInterval: fixed((fn, ms, ...args) => schedule(fn, ms, args, true)),
    clearTimeout: fixed(clear),
    clearInterval: fixed(clear),
    queueMicrotask: fixed((fn) => void Promise.resolve().then(fn)),
  })
  return function runNextTimer() {
    if (timers.length === 0) return false
    timers.sort((a, b) => a.at - b.at || a.order - b.order)
    const timer = timers.shift()
    now = timer.at
    if (timer.every > 0) timers.push(Object.assign({}, timer, { at: now + timer.every, order: order++ }))
    timer.fn.apply(undefined, timer.args)
    return true
  }
})`
