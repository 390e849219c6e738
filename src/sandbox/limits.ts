/**
 * The sandbox's limits: what a tab or an agent may change (SandboxInit) and
 * the defaults, each with why. Shared by the browser and Node sandboxes, and
 * loaded inside the sandbox worker: it imports nothing (the code cap, which
 * comes from the record's schema, is in worker-host.ts).
 */
/** A computation the model asks for (a sum, a table, a date) takes milliseconds; 5 s is generous and still keeps a tool loop responsive. */
export const DEFAULT_TIME_LIMIT_MS = 5_000
/** Guest heap beyond the engine's own start (16 MB): room for a few million numbers or a big table, far below what hurts a tab. */
export const DEFAULT_MEMORY_MB = 64
/** What the model sees of stdout: a few pages, enough to read results; the record keeps less (MAX_STEP_STDOUT). */
export const DEFAULT_STDOUT_CHARS = 8_000
/** stderr is for warnings and errors: shorter. */
export const DEFAULT_STDERR_CHARS = 4_000
/** An exception message with its stack: the first frames are what helps the model fix the program. */
export const MAX_ERROR_CHARS = 2_000
/**
 * QuickJS's own stack limit: deep recursion ends as a RangeError well before
 * the host's native stack (which the WebAssembly frames share) runs out.
 */
export const GUEST_STACK_BYTES = 256 * 1024
/** After the time limit the interrupt handler has stopped the guest; if the worker is still silent this much later, it is stuck in WebAssembly and is terminated. */
export const KILL_GRACE_MS = 1_000
/** Loading the engine (a 0.5 MB WebAssembly file) takes well under a second; this much means it will not load. */
export const LOAD_TIMEOUT_MS = 20_000

export interface SandboxInit {
  /** wall-clock limit of one run, ms (default DEFAULT_TIME_LIMIT_MS) */
  timeLimitMs?: number
  /** guest heap, MB (default DEFAULT_MEMORY_MB) */
  memoryMb?: number
  /** characters of stdout returned (default DEFAULT_STDOUT_CHARS); more is cut with a marker */
  stdoutChars?: number
  /** characters of stderr returned (default DEFAULT_STDERR_CHARS) */
  stderrChars?: number
}

/** What the guest runner needs for one run: SandboxInit resolved, plus the fixed limits. */
export interface GuestLimits {
  timeLimitMs: number
  memoryMb: number
  stackBytes: number
  stdoutChars: number
  stderrChars: number
  errorChars: number
}

export function resolveLimits(init: SandboxInit = {}): GuestLimits {
  return {
    timeLimitMs: positive(init.timeLimitMs, DEFAULT_TIME_LIMIT_MS),
    memoryMb: positive(init.memoryMb, DEFAULT_MEMORY_MB),
    stackBytes: GUEST_STACK_BYTES,
    stdoutChars: positive(init.stdoutChars, DEFAULT_STDOUT_CHARS),
    stderrChars: positive(init.stderrChars, DEFAULT_STDERR_CHARS),
    errorChars: MAX_ERROR_CHARS,
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback
}

/** The marker that replaces what was cut; the model reads it and can print less. */
export function cutMarker(more: number): string {
  return `… [cut: ${more} more characters]`
}

/** `text` cut to `max` characters, with the marker when anything was cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max) + cutMarker(text.length - max)
}

export function timeLimitMessage(ms: number): string {
  return `time limit of ${ms / 1000} s reached`
}

export function memoryLimitMessage(mb: number): string {
  return `memory limit of ${mb} MB reached`
}
