/**
 * What a model wrote that is not its answer, set aside before the answer is
 * read (issue 44). Reasoning models served by local servers (DeepSeek-R1,
 * Qwen3 on Ollama, LM Studio, llama.cpp) write their reasoning into the
 * reply itself, inside <think>…</think>; the reasoning often drafts the JSON
 * before the real answer comes after the block, so the draft must not be
 * what gets parsed. Reasoning a provider sends apart (reasoning_content,
 * Anthropic thinking blocks) never reaches the text: the AI SDK keeps it as
 * reasoning parts, and the provider only reports its size.
 *
 * Pure: text in, the answer and notes for the call log out.
 */
import type { GenerateResult } from './provider'

export interface SetAside {
  /** the reply without its reasoning */
  answer: string
  /** what was set aside, for the call log ("set aside a <think> block (812 chars)") */
  notes: string[]
  /** the reasoning never closed: the reply is all reasoning, cut off or unfinished */
  unclosed: boolean
}

/** The tags reasoning models wrap their thoughts in: <think> (DeepSeek-R1, Qwen3, QwQ), <thinking>, <reasoning>. */
const TAG = '(think|thinking|reasoning)'
const OPEN = new RegExp(`<${TAG}>`, 'i')
const BLOCK = new RegExp(`<${TAG}>[\\s\\S]*?</\\1>`, 'gi')
const CLOSE = new RegExp(`</${TAG}>`, 'i')

function chars(n: number): string {
  return `${n} char${n === 1 ? '' : 's'}`
}

export function setAsideThinking(text: string): SetAside {
  const notes: string[] = []
  let answer = text
  // A chat template that opens the block in the prompt leaves only its end in the reply (Qwen3, R1 distills).
  const firstClose = CLOSE.exec(answer)
  const firstOpen = OPEN.exec(answer)
  if (firstClose && (!firstOpen || firstOpen.index > firstClose.index)) {
    const end = firstClose.index + firstClose[0].length
    notes.push(
      `set aside reasoning that ended with a ${firstClose[0]} tag (${chars(firstClose.index)})`,
    )
    answer = answer.slice(end)
  }
  answer = answer.replace(BLOCK, (block: string, tag: string) => {
    notes.push(`set aside a <${tag.toLowerCase()}> block (${chars(block.length)})`)
    return ''
  })
  const open = OPEN.exec(answer)
  if (open) {
    notes.push(
      `set aside an unclosed <${open[1]!.toLowerCase()}> block (${chars(answer.length - open.index)}): the reply ended inside its reasoning`,
    )
    return { answer: answer.slice(0, open.index).trim(), notes, unclosed: true }
  }
  return { answer: answer.trim(), notes, unclosed: false }
}

/** A reply wrapped whole in one ``` fence (```markdown, ```md, ``` …): its inside. */
const WHOLE_FENCE = /^```[\w-]*[^\S\n]*\n([\s\S]*?)\n?```$/

export function unfence(text: string): string {
  const match = WHOLE_FENCE.exec(text.trim())
  return match ? match[1]!.trim() : text.trim()
}

/** The note for reasoning the provider sent apart from the text (reasoning_content, thinking blocks). */
export function reasoningNote(reasoningChars: number): string {
  return `set aside the model's separate reasoning (${chars(reasoningChars)}; its tokens are counted)`
}

/** Why the reply stopped, and how much reasoning came apart from its text (the call log notes both). */
export function finishAndReasoning(result: {
  finishReason: string
  reasoningText: string | undefined
}): Pick<GenerateResult, 'finishReason' | 'reasoningChars'> {
  const reasoningChars = result.reasoningText?.length ?? 0
  return {
    finishReason: result.finishReason,
    ...(reasoningChars > 0 ? { reasoningChars } : {}),
  }
}
