/**
 * A tab's role worker: hosts the role core and makes its LLM calls, off the
 * main thread, so the UI stays smooth and timers keep running when the tab
 * is in the background. It talks only to its tab, through messages.ts.
 */
// first: zod's JIT probe off in this realm before anything parses (protocol/zod.ts)
import '../protocol/zod'
import { CoreDriver } from '../runtime/driver'
import { McpHub } from '../runtime/mcp/hub'
import { indexedDbSpending } from '../runtime/persist.browser'
import type { CodeSandbox } from '../sandbox/types'
import type { FromWorker, ToWorker } from './messages'

/**
 * The tab's code sandbox, a Worker of its own started from this one: its
 * code is loaded only when a model first runs a program (runCode on).
 */
async function browserSandbox(): Promise<CodeSandbox> {
  const { createBrowserSandbox } = await import('../sandbox/sandbox.browser')
  return createBrowserSandbox()
}

const scope = self as unknown as {
  postMessage(message: FromWorker): void
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null
  close(): void
}
const post = (message: FromWorker) => scope.postMessage(message)
let driver: CoreDriver | null = null

scope.onmessage = ({ data }) => {
  switch (data.type) {
    case 'start': {
      // an executor's MCP servers live here, beside its LLM calls: URLs only, and its person is here to ask
      const mcp = data.config.role === 'executor' ? new McpHub({ canAsk: true }) : undefined
      driver = new CoreDriver({
        config: data.config,
        records: data.records,
        model: data.model,
        budget: data.budget,
        authors: data.authors,
        tools: data.tools,
        createSandbox: browserSandbox,
        ...(mcp ? { mcp } : {}),
        ...(data.member ? { member: data.member } : {}),
        // what this tab spent survives a reload (IndexedDB, under the tab's identity)
        spending: indexedDbSpending(data.config.peerId),
        publish: (records) => post({ type: 'publish', records }),
        requestSync: () => post({ type: 'sync' }),
        onTree: (tree) => post({ type: 'tree', tree }),
        onActivity: (activity) => post({ type: 'activity', activity }),
        onEntry: (entry) => post({ type: 'entry', entry }),
        onCall: (call) => post({ type: 'call', call }),
        // a tab shows its running calls' text as it arrives: they stream
        onLive: (live) => post({ type: 'live', live }),
        log: (message) => post({ type: 'log', message }),
      })
      if (data.mcp) driver.setMcp(data.mcp)
      post({ type: 'tree', tree: driver.tree() })
      post({ type: 'activity', activity: driver.activity() })
      break
    }
    case 'deliver':
      driver?.deliver(data.inputs)
      break
    case 'set-model':
      driver?.setModel(data.model)
      break
    case 'model-checked':
      driver?.modelChecked(data.model, data.verdict)
      break
    case 'set-budget':
      driver?.setBudget(data.limits)
      break
    case 'set-authors':
      driver?.setAuthors(data.authors)
      break
    case 'set-capabilities':
      driver?.setCapabilities(data.capabilities)
      break
    case 'set-tools':
      driver?.setTools(data.consent)
      break
    case 'set-mcp':
      driver?.setMcp(data.settings)
      break
    case 'answer-tool':
      driver?.answerToolCall(data.id, data.allow)
      break
    case 'archive':
      driver?.archive(data.ids)
      break
    case 'stop':
      driver?.stop()
      scope.close()
      break
  }
}
