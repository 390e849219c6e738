/**
 * The agent's start-up check of its LLM settings (src/llm/model-check.ts),
 * and the line it prints while a slow server keeps it waiting.
 */
export * from '../llm/model-check'

/** The line a check still waiting prints: the likely reason, so nobody gives up on it. */
export function waitingLine(label: string, seconds: number): string {
  return `  checking ${label} … (still waiting, ${seconds} s: a local server may be loading the model)`
}
