import { describe, expect, it } from 'vitest'
import { partialOutput } from './partial-output'

describe('partialOutput', () => {
  const whole = JSON.stringify({ output: '# Plan\n\n- "quoted" \\ path\n- café ✓' })

  it('decodes the output string of every prefix of a reply, never showing JSON escapes', () => {
    for (let n = 0; n <= whole.length; n++) {
      const shown = partialOutput(whole.slice(0, n))
      expect('# Plan\n\n- "quoted" \\ path\n- café ✓'.startsWith(shown)).toBe(true)
    }
    expect(partialOutput(whole)).toBe('# Plan\n\n- "quoted" \\ path\n- café ✓')
  })

  it('reads \\u escapes only once they are whole', () => {
    expect(partialOutput('{"output": "a\\u00e')).toBe('a')
    expect(partialOutput('{"output": "a\\u00e9b')).toBe('aéb')
  })

  it('finds the output in a fenced reply, and shows nothing before it begins', () => {
    const fenced = 'Sure! Here is the result:\n\n```json\n{\n  "output": "Step one'
    expect(partialOutput(fenced)).toBe('Step one')
    expect(partialOutput('Sure! Here is the result:\n\n```json\n{\n  "out')).toBe('')
    expect(partialOutput('{"outp')).toBe('')
  })

  it('shows nothing of a <think> block, whole, unclosed or with its tag still arriving', () => {
    const reply = '<think>\nDraft: {"output": "not this"}\n</think>\n{"output": "# Real'
    for (let n = 0; n <= reply.indexOf('</think>') + 8; n++) {
      expect(partialOutput(reply.slice(0, n))).not.toContain('not this')
      expect(partialOutput(reply.slice(0, n))).not.toContain('Draft')
      expect(partialOutput(reply.slice(0, n))).not.toMatch(/<\/?t/)
    }
    expect(partialOutput(reply)).toBe('# Real')
    // the chat template opened the block: everything up to </think> is reasoning
    expect(partialOutput('Let me think.\n</think>\n## Museums')).toBe('## Museums')
  })

  it('shows plain Markdown as it is', () => {
    expect(partialOutput('## Museums\n- Gulbenkian')).toBe('## Museums\n- Gulbenkian')
  })
})
