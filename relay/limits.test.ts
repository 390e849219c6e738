import { describe, expect, it } from 'vitest'
import { multiaddr } from '@multiformats/multiaddr'
import { addressKey, REFUSAL_FORGET_MS, RefusalLog } from './limits'
import { addressOf, ipOf } from './limits-gater'
import { lineLogger } from '../src/net/log'

describe('addressKey', () => {
  it('keeps IPv4, maps IPv4-mapped IPv6 to IPv4, and counts other IPv6 per /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7')
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64')
    expect(addressKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64')
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(addressKey('::1')).toBe('0:0:0:0::/64')
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64')
    expect(addressKey('not-an-ip')).toBe('not-an-ip')
  })

  it('reads the IP of a multiaddr, none for a relayed one', () => {
    expect(ipOf(multiaddr('/ip4/127.0.0.2/tcp/5/ws'))).toBe('127.0.0.2')
    expect(addressOf(multiaddr('/ip6/2001:db8:1:2::9/tcp/5/ws'))).toBe('2001:db8:1:2::/64')
    expect(ipOf(multiaddr('/p2p-circuit'))).toBeUndefined()
  })
})

describe('RefusalLog', () => {
  const setup = (maxKeys?: number) => {
    const lines: string[] = []
    const log = new RefusalLog(
      lineLogger((l) => lines.push(l), 'relay'),
      maxKeys,
    )
    return { lines, log }
  }

  it('logs the first refusal per kind and address, then one summary line per flush', () => {
    const { lines, log } = setup()
    for (let i = 0; i < 500; i++) log.refuse('connection', '127.0.0.2', 'too many', i)
    log.refuse('reservation', '127.0.0.2', 'too many', 1)
    log.refuse('connection', '127.0.0.3', 'too many', 1)
    expect(lines).toHaveLength(3)
    expect(lines[0]).toContain('refused a connection from 127.0.0.2: too many')
    log.flush(1_000)
    expect(lines).toHaveLength(4)
    expect(lines[3]).toContain('refused 499 more connections from 127.0.0.2 (500 in all)')
    log.flush(2_000) // nothing new: nothing said
    expect(lines).toHaveLength(4)
    expect(log.totals().get('connection|127.0.0.2')).toBe(500)
  })

  it('forgets a quiet address (its next flood is logged again) and bounds its memory', () => {
    const { lines, log } = setup(2)
    log.refuse('connection', 'a', 'x', 0)
    log.flush(REFUSAL_FORGET_MS + 1)
    expect(log.totals().size).toBe(0)
    log.refuse('connection', 'a', 'x', REFUSAL_FORGET_MS + 2)
    expect(lines).toHaveLength(2)

    log.refuse('connection', 'b', 'x', 0)
    for (const addr of ['c', 'd', 'e']) log.refuse('connection', addr, 'x', 0)
    // a, b remembered; c, d, e counted together
    expect(log.totals().get('connection|other addresses')).toBe(3)
    expect(log.totals().size).toBe(3)
    expect(lines.filter((l) => l.includes('other addresses'))).toHaveLength(1)
  })
})
