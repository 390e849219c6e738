/**
 * The sandbox contract: run a program the model wrote, with no network, no
 * storage, a time limit and an output cap, and say what happened. Only the
 * executor that asked the model runs the code; what ran reaches the core as
 * data (a CodeStep in the result, src/protocol/steps.ts).
 */
import type { CodeLanguage, CodeStep } from '../protocol/steps'

export interface CodeRunRequest {
  language: CodeLanguage
  code: string
}

/**
 * What one run did: a CodeStep's fields, with output cut to the sandbox's
 * caps (the executor clips again to the record's when it publishes).
 */
export type CodeRun = Omit<CodeStep, 'type'>

export interface CodeSandbox {
  /** Runs one program. Never rejects for the program's own faults (they are in the CodeRun); rejects only when signal aborts. */
  run(request: CodeRunRequest, signal?: AbortSignal): Promise<CodeRun>
  /** Frees the worker. Later runs start a new one. */
  close(): void
}
