/**
 * Builds the network-layer test harness (e2e/harness/), which is not part of
 * the app: `vite build --config vite.harness.config.ts` writes it to
 * e2e/artifacts/harness/ (gitignored). The e2e global setup does this.
 */
import { defineConfig } from 'vite'
import { fileURLToPath } from 'node:url'

export default defineConfig({
  root: fileURLToPath(new URL('./e2e/harness', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: {
    target: 'es2022',
    outDir: fileURLToPath(new URL('./e2e/artifacts/harness', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    minify: true,
  },
})
