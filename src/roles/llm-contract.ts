/**
 * The contract between role logic and the LLM layer, owned by the core.
 *
 * Role state machines (src/roles) emit LlmTask values; the LLM layer
 * (src/llm) turns a task into prompts, calls a provider, validates the
 * output with zod, retries with the parse error fed back, and answers with
 * an LlmOutcome. Role logic never sees prompts or providers. The LLM layer
 * depends on this module; nothing in the core depends on the LLM layer.
 */
import type { Capability } from '../protocol/capabilities'
import type { Judgement } from '../protocol/records'
import type { Step } from '../protocol/steps'
import type { ToolGroup } from '../protocol/tool-groups'

/** A subgoal as a decomposer proposes it. dependsOn holds indices of earlier siblings. */
export interface SubgoalDraft {
  text: string
  dependsOn: number[]
}

/** A split the goal's author vetoed: the note and the subgoals, so it is not proposed again. */
export interface VetoedSplit {
  note: string
  subgoals: string[]
}

/** A leaf sent back by its author: their note, and the output it replaces (null if it failed). */
export interface RedoGuidance {
  note: string
  previous: string | null
}

/** The chain of goals from the root down to (and including) the goal being worked on. */
export type GoalPath = string[]

export type LlmTask =
  | {
      kind: 'decompose'
      path: GoalPath
      depth: number
      maxDepth: number
      /** splits of this goal its author vetoed, with their notes (absent when none) */
      vetoed?: VetoedSplit[]
      /** what the live executors of the room offer (RoomCapabilities); absent when unknown */
      roomCapabilities?: Capability[]
      /** the tool groups the room's live executors announce (since version 8); absent when none */
      roomTools?: ToolGroup[]
    }
  | {
      /**
       * score a split and judge each of its subgoals (atomic or not, and the
       * capability it needs): the accepted split is classified by its
       * voters' judgements (plan/classify.ts, since protocol version 7)
       */
      kind: 'score'
      path: GoalPath
      subgoals: SubgoalDraft[]
      rationale: string
      /** depth of the subgoals (the goal's + 1) and the tree's depth cap */
      depth: number
      maxDepth: number
      /**
       * what the live executors of the room offer: a leaf that can be done
       * with one of these should name it rather than one nobody offers
       * (absent when unknown)
       */
      roomCapabilities?: Capability[]
      /**
       * the tool groups the room's live executors announce: a subgoal that
       * needs one of them names it in its judgement (absent when none)
       */
      roomTools?: ToolGroup[]
    }
  | {
      kind: 'execute'
      path: GoalPath
      task: string
      capability: Capability
      /** the tool group the leaf needs (since version 8): this executor's own MCP server */
      tool?: string
      dependencies: { text: string; output: string }[]
      /** the author sent this leaf back: their note and the earlier output (absent when not) */
      redo?: RedoGuidance
    }
  | { kind: 'rollup'; path: GoalPath; parts: { text: string; output: string }[] }

export type LlmTaskKind = LlmTask['kind']

/** What each task kind yields once validated. */
export interface LlmOutputs {
  decompose: { subgoals: SubgoalDraft[]; rationale: string }
  /** judgements: one per subgoal of the split, in order */
  score: { score: number; notes: string; judgements: Judgement[] }
  /** steps: what the executor ran and searched (issue 24); absent when no tool ran */
  execute: { output: string; steps?: Step[] }
  rollup: { output: string }
}

/** Tokens spent by one LLM call (all attempts of it), for cost per role and goal. */
export interface LlmUsage {
  provider: string
  model: string
  inputTokens: number
  outputTokens: number
  /** true when the built-in offline model answered (costs nothing, not a real LLM) */
  offline: boolean
}

/**
 * Why an LLM call failed, so the UI can say what to fix: 'auth' a bad or
 * missing key (401/403), 'not-found' the server does not know the model, or
 * has nothing at the address (404), 'unreachable' no HTTP answer (network,
 * DNS, connection refused, CORS), 'rate-limit' (429), 'output' replies that
 * never passed the schema, 'other' anything else (other 4xx, 5xx, bugs).
 */
export type LlmErrorKind = 'auth' | 'not-found' | 'unreachable' | 'rate-limit' | 'output' | 'other'

/**
 * What a call's tools cost beyond its tokens, for the budget: web searches
 * are priced per call. Absent when no tool ran.
 */
export interface ToolSpend {
  webSearches: number
}

export type LlmOutcome<K extends LlmTaskKind = LlmTaskKind> =
  | {
      ok: true
      kind: K
      value: LlmOutputs[K]
      usage: LlmUsage
      attempts: number
      tools?: ToolSpend
    }
  | {
      ok: false
      kind: K
      /** a short human message, fit to show in the UI or publish as a failure detail */
      error: string
      errorKind: LlmErrorKind
      usage: LlmUsage
      attempts: number
      tools?: ToolSpend
      /** the tool loop was ended by this peer's budget before the model answered */
      budgetStopped?: boolean
    }
