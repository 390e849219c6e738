/**
 * Runs the role core in a Web Worker (src/worker/role.worker.ts) and
 * presents it to the runtime as a CoreHost. The latest tree and activity the
 * worker sent are kept here so the UI can read them synchronously.
 */
import { zeroRoleUsage, type PlanTree } from '../plan/tree'
import type { FromWorker, ToWorker } from '../worker/messages'
import type { CoreHost, StartCore } from './host'
import { UNKNOWN_MODEL } from '../roles/model-health'
import type { RoleActivity } from './types'

const EMPTY_TREE: PlanTree = {
  goals: [],
  over: false,
  progress: { leaves: 0, leavesDone: 0, leavesFailed: 0, goals: 0 },
  roomUsage: zeroRoleUsage(),
}

export const workerCore: StartCore = (init) => {
  const worker = new Worker(new URL('../worker/role.worker.ts', import.meta.url), {
    type: 'module',
    name: `murmuration-${init.config.role}`,
  })
  const send = (message: ToWorker) => worker.postMessage(message)
  let tree = EMPTY_TREE
  let activity: RoleActivity | null = null
  worker.onmessage = ({ data }: MessageEvent<FromWorker>) => {
    switch (data.type) {
      case 'publish':
        init.publish(data.records)
        break
      case 'sync':
        init.requestSync()
        break
      case 'tree':
        tree = data.tree
        init.onTree(tree)
        break
      case 'activity':
        activity = data.activity
        init.onActivity(activity)
        break
      case 'entry':
        init.onEntry(data.entry)
        break
      case 'log':
        init.log(data.message)
        break
      case 'call':
        init.onCall(data.call)
        break
      case 'live':
        init.onLive(data.live)
        break
    }
  }
  worker.onerror = (event) => init.log(`role worker error: ${event.message}`)
  send({
    type: 'start',
    config: init.config,
    records: init.records,
    model: init.model,
    budget: init.budget,
    authors: init.authors,
    tools: init.tools,
    ...(init.mcpSettings ? { mcp: init.mcpSettings } : {}),
    ...(init.member ? { member: init.member } : {}),
  })
  const host: CoreHost = {
    deliver: (inputs) => send({ type: 'deliver', inputs }),
    setModel: (model) => send({ type: 'set-model', model }),
    modelChecked: (model, verdict) => send({ type: 'model-checked', model, verdict }),
    setBudget: (limits) => send({ type: 'set-budget', limits }),
    setAuthors: (authors) => send({ type: 'set-authors', authors }),
    setCapabilities: (capabilities) => send({ type: 'set-capabilities', capabilities }),
    setTools: (consent) => send({ type: 'set-tools', consent }),
    setMcp: (settings) => send({ type: 'set-mcp', settings }),
    answerToolCall: (id, allow) => send({ type: 'answer-tool', id, allow }),
    archive: (ids) => send({ type: 'archive', ids }),
    tree: () => tree,
    activity: () =>
      activity ?? {
        role: init.config.role,
        capabilities: init.config.capabilities,
        model: init.config.model,
        offline: init.config.offline,
        healthy: true,
        lastError: null,
        lastErrorKind: null,
        modelStatus: UNKNOWN_MODEL,
        work: [],
        recent: [],
        swarm: [],
        llm: {
          calls: { decompose: 0, score: 0, execute: 0, rollup: 0 },
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          unpricedCalls: 0,
          failedCalls: 0,
        },
      },
    stop: () => {
      send({ type: 'stop' })
      setTimeout(() => worker.terminate(), 1_000)
    },
  }
  return host
}
