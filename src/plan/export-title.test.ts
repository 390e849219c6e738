import { Marked, type Tokens } from 'marked'
import { describe, expect, it } from 'vitest'
import { exportMarkdown } from './export'
import { noLeaves } from './goal-status'
import type { GoalView, PlanTree } from './tree'

/** Only the fields the Markdown export reads: the tree's other fields do not matter here. */
function tree(rollup: string | null, slotText = 'Write the packing list'): PlanTree {
  const goal = {
    id: 'root',
    text: 'Plan a two-week trip to Japan',
    status: rollup ? 'done' : 'accepted',
    phase: rollup ? 'complete' : 'running',
    failedParts: 0,
    leaves: { ...noLeaves(), total: 1, done: 1 },
    accepted: null,
    rollup: { output: rollup, holder: null, why: null },
    slots: [
      {
        index: 0,
        text: slotText,
        status: 'done',
        atomic: true,
        capability: 'can_write_text',
        goal: null,
        leaf: null,
      },
    ],
  }
  return { goals: [goal as unknown as GoalView] } as unknown as PlanTree
}

function headings(markdown: string, depth: number): string[] {
  return new Marked({ gfm: true })
    .lexer(markdown)
    .filter((t): t is Tokens.Heading => t.type === 'heading' && t.depth === depth)
    .map((h) => h.text)
}

describe('Markdown export title (issue 43)', () => {
  it('opens with the plan’s own title when the plan has one: one H1, not two', () => {
    const markdown = exportMarkdown(tree('# Plan a two-week trip to Japan\n\nOverview.'), 'root')
    expect(headings(markdown, 1)).toEqual(['Plan a two-week trip to Japan'])
    expect(markdown.startsWith('# Plan a two-week trip to Japan\n\nOverview.')).toBe(true)
  })

  it('gives the goal as the title when the plan has none or is not finished', () => {
    expect(headings(exportMarkdown(tree('Just text.'), 'root'), 1)).toEqual([
      'Plan a two-week trip to Japan',
    ])
    expect(headings(exportMarkdown(tree(null), 'root'), 1)).toEqual([
      'Plan a two-week trip to Japan',
    ])
  })

  it('shows a subgoal’s text as typed in the split list, its ** no markup', () => {
    const markdown = exportMarkdown(tree('# T', 'Book **two** nights'), 'root')
    expect(markdown).toContain('- **Book \\*\\*two\\*\\* nights** — done')
  })
})
