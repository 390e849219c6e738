/** Rough characters per token for English text: the usual rule of thumb for GPT and Claude tokenisers. */
const CHARS_PER_TOKEN = 4

/** Token estimate for when no count is available (the offline model; servers that report no usage). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}
