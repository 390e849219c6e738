/**
 * The guest's `console`, written in JavaScript and evaluated inside QuickJS
 * before the program. It formats arguments much like Node's console (strings
 * bare, objects as `{ a: 1 }`, nested strings quoted) and hands each line to
 * one host function, `write(stream, text, fullLength) -> room left`. The
 * guest slices a line to the room left before it crosses into the host, so a
 * huge string is never copied out; the host still enforces the cap itself.
 *
 * The source is an expression whose value is the installer: the host calls it
 * with `write` and the caps, so `write` is never a global the program sees.
 */
export const GUEST_CONSOLE_SOURCE = String.raw`(function install(write, outRoom, errRoom) {
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
    if (value instanceof Error) return String(value.stack ? value.name + ': ' + value.message + '\n' + value.stack : value)
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
  Object.defineProperty(globalThis, 'console', { value: Object.freeze(console), writable: false, configurable: false })
})`
