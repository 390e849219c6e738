import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { precompress } from './scripts/vite-precompress.js'

export default defineConfig({
  plugins: [svelte(), precompress()],
  worker: { format: 'es' },
  resolve: {
    // @ai-sdk/openai pins provider-utils 4.0.66 while the others pin 4.0.65
    // (same exports): one copy in the worker instead of two
    dedupe: ['@ai-sdk/provider', '@ai-sdk/provider-utils'],
    // we always pass provider model objects: the AI Gateway is never used (no-gateway.ts)
    alias: { '@ai-sdk/gateway': fileURLToPath(new URL('src/llm/no-gateway.ts', import.meta.url)) },
  },
  build: {
    target: 'es2022',
    // maps are built (for a developer: MURMURATION_SOURCE_MAPS=1 npm start serves them and
    // sends a SourceMap header) but not referenced from the scripts, so a visitor's browser
    // never asks for 8 MB it does not need and devtools do not warn about a missing map
    sourcemap: 'hidden',
    // libp2p and the AI SDK make big chunks; that is known and fine for a LAN app
    chunkSizeWarningLimit: 1_500,
    // the per-plugin timing report is noise in `npm start` and CI logs
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    // `npm run dev` beside `npm run relay`: the app finds the relay at its own origin
    proxy: { '/relay.json': 'http://127.0.0.1:9091' },
  },
})
