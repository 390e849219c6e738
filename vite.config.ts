import { defineConfig } from 'vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'

export default defineConfig({
  plugins: [svelte()],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: true,
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
