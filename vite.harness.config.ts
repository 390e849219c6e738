/**
 * Builds the test harness pages (e2e/harness/: the network layer's
 * index.html, the code sandbox's sandbox.html, the Ed25519 rules'
 * ed25519.html), which are not part of the
 * app: `vite build --config vite.harness.config.ts` writes them to
 * e2e/artifacts/harness/ (gitignored). The e2e global setup does this.
 */
import { defineConfig } from 'vite'
import { fileURLToPath } from 'node:url'

export default defineConfig({
  root: fileURLToPath(new URL('./e2e/harness', import.meta.url)),
  base: './',
  logLevel: 'warn',
  // as the app's vite.config.ts: workers are modules (the sandbox's split into chunks)
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    outDir: fileURLToPath(new URL('./e2e/artifacts/harness', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    minify: true,
    rolldownOptions: {
      input: {
        index: fileURLToPath(new URL('./e2e/harness/index.html', import.meta.url)),
        sandbox: fileURLToPath(new URL('./e2e/harness/sandbox.html', import.meta.url)),
        ed25519: fileURLToPath(new URL('./e2e/harness/ed25519.html', import.meta.url)),
      },
    },
  },
})
