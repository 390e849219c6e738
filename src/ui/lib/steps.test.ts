import { describe, expect, it } from 'vitest'
import type { CodeStep } from '../../protocol/steps'
import { actions, codeRunSummary, fromKnowledge, sourceLink } from './steps'

const run: CodeStep = {
  type: 'code',
  language: 'javascript',
  code: 'console.log(1)',
  stdout: '1\n',
  stderr: '',
  exit: 0,
  error: '',
  durationMs: 12,
  timedOut: false,
}

describe('step view helpers', () => {
  it('links only http(s) sources, and names their site', () => {
    expect(sourceLink({ title: ' Prices ', url: 'https://example.com/a?b=1' })).toEqual({
      href: 'https://example.com/a?b=1',
      title: 'Prices',
      host: 'example.com',
    })
    expect(sourceLink({ title: '', url: 'http://example.org' })).toEqual({
      href: 'http://example.org/',
      title: 'http://example.org',
      host: 'example.org',
    })
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'not a url']) {
      expect(sourceLink({ title: 'x', url }).href).toBeNull()
    }
  })

  it('sums up a code run: language, how it ended, how long it took', () => {
    expect(codeRunSummary(run)).toBe('JavaScript, exit code 0, 12 ms')
    expect(codeRunSummary({ ...run, exit: 1, durationMs: 1500 })).toBe(
      'JavaScript, exit code 1, 1.5 s',
    )
    expect(codeRunSummary({ ...run, exit: 1, timedOut: true, durationMs: 5004 })).toBe(
      'JavaScript, timed out after 5.0 s',
    )
  })

  it('tells knowledge answers apart from the steps that acted', () => {
    const search = { type: 'search' as const, query: 'q', sources: [] }
    expect(fromKnowledge(null)).toBe(false)
    expect(fromKnowledge([run, search])).toBe(false)
    expect(fromKnowledge([{ type: 'knowledge' }])).toBe(true)
    expect(actions([run, { type: 'knowledge' }, search])).toEqual([run, search])
    expect(actions(null)).toEqual([])
  })
})
