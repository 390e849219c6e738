// The Node sandbox's worker thread entry, in plain JavaScript so that a new
// thread can start it under tsx (`npm run agent`), vitest or bare node alike:
// it registers tsx's loader, then loads the TypeScript worker.
import { register } from 'tsx/esm/api'

register()
await import('./sandbox-worker.node.ts')
