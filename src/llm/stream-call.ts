/**
 * One streamed model call (issue 27: answers stream in as written): the AI
 * SDK's streamText, read part by part, each piece of text handed to onText
 * as it arrives, the whole reply returned at the end for validation like an
 * unstreamed one (run-task.ts judges it; nothing partial is ever accepted).
 *
 * streamText does not throw: a failed request (401, 429, a 400 naming a
 * parameter) arrives as an `error` part. It is thrown here, as generateText
 * would have thrown it, so the callers' error handling (retries, the switch
 * to text mode, toLlmError) stays one path for both.
 */
import { streamText, type LanguageModelUsage } from 'ai'

export interface StreamedReply {
  /** every text delta, joined: the raw reply */
  text: string
  usage: LanguageModelUsage
  /** the model the provider said answered, if it said */
  modelId: string | undefined
  /** why generation stopped ('length': cut at maxOutputTokens) */
  finishReason: string
  /** characters of reasoning streamed apart from the text (never handed to onText) */
  reasoningChars: number
}

type StreamOptions = Parameters<typeof streamText>[0]

export async function streamReply(
  options: StreamOptions,
  onText: (delta: string) => void,
): Promise<StreamedReply> {
  const signal = options.abortSignal
  const result = streamText({
    ...options,
    // errors come as parts, thrown below; the SDK's default logs them to the console
    onError: () => {},
  })
  let text = ''
  let reasoningChars = 0
  for await (const part of result.fullStream) {
    if (part.type === 'reasoning-delta') {
      reasoningChars += part.text.length
    } else if (part.type === 'text-delta') {
      if (part.text === '') continue
      text += part.text
      onText(part.text)
    } else if (part.type === 'error') {
      throw part.error
    } else if (part.type === 'abort') {
      signal?.throwIfAborted()
      throw new DOMException('the stream was aborted', 'AbortError')
    }
  }
  const [usage, response, finishReason] = await Promise.all([
    result.usage,
    result.response,
    result.finishReason,
  ])
  return { text, usage, modelId: response.modelId || undefined, finishReason, reasoningChars }
}
