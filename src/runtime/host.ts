/**
 * Where the role core runs, as the runtime sees it: in-process (headless
 * agents, tests, benchmarks) or in a Web Worker (tabs: worker-host.browser.ts).
 */
import type { ModelConfig, ProviderInit } from '../llm/index'
import type { PlanRecord, WireRecord } from '../protocol/records'
import type { PlanTree } from '../plan/tree'
import type { PeerInput } from '../roles/index'
import type { PeerConfig } from '../roles/types'
import type { BudgetLimits } from './budget'
import type { CallEntry } from './call-log'
import { CoreDriver } from './driver'
import type { RoleActivity } from './types'

export interface CoreHostInit {
  config: PeerConfig
  records: PlanRecord[]
  model: ModelConfig
  budget: BudgetLimits
  /** authors whose goals the role works on; null: anyone in the room */
  authors: string[] | null
  /** records the core wants published */
  publish: (records: WireRecord[]) => void
  /** the core asks for an anti-entropy round now (see Effects.sync) */
  requestSync: () => void
  onTree: (tree: PlanTree) => void
  onActivity: (activity: RoleActivity) => void
  /** a finished LLM call, for the call log (without the API key) */
  onCall: (call: CallEntry) => void
  log: (message: string) => void
}

export interface CoreHost {
  deliver(inputs: PeerInput[]): void
  setModel(model: ModelConfig): void
  setBudget(limits: BudgetLimits): void
  setAuthors(authors: string[] | null): void
  /** drops archived records from the core's plan (see src/plan/archive.ts) */
  archive(ids: string[]): void
  /** the latest tree and activity (a worker host answers with the last it received) */
  tree(): PlanTree
  activity(): RoleActivity
  stop(): void
}

export type StartCore = (init: CoreHostInit) => CoreHost

/** Run the core in this process. */
export function inProcessCore(providerInit?: ProviderInit): StartCore {
  return (init) => {
    const driver = new CoreDriver({ ...init, providerInit })
    return {
      deliver: (inputs) => driver.deliver(inputs),
      setModel: (model) => driver.setModel(model),
      setBudget: (limits) => driver.setBudget(limits),
      setAuthors: (authors) => driver.setAuthors(authors),
      archive: (ids) => driver.archive(ids),
      tree: () => driver.tree(),
      activity: () => driver.activity(),
      stop: () => driver.stop(),
    }
  }
}
