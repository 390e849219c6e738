/**
 * zod, as every module of ours imports it: in a browser, without its JIT.
 *
 * zod compiles a fast parser for object schemas with `new Function` when it
 * can, and finds out whether it can by trying `new Function('')` once. The
 * app's Content-Security-Policy has no 'unsafe-eval' (relay/app-server.ts), so
 * in a tab the try always fails, and Firefox reports it as a CSP error on
 * every page load. `jitless` skips the try: nothing changes but the error.
 * Node has no such policy and keeps the JIT (the simulator and the bench
 * parse millions of records). The setting is zod's one global
 * (globalThis.__zod_globalConfig), shared by the AI SDK's zod: it is made
 * before any schema of ours exists, when this module is first evaluated.
 */
import { z } from 'zod'

/** A browser page or worker: no Node `process` (Vite defines none). */
const inBrowser = typeof process === 'undefined' || process.versions?.node === undefined
if (inBrowser) z.config({ jitless: true })

export { z }
