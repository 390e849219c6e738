import { defineConfig } from 'vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'

export default defineConfig({
  plugins: [svelte()],
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  server: {
    // `npm run dev` beside `npm run relay`: the app finds the relay at its own origin
    proxy: { '/relay.json': 'http://127.0.0.1:9091' },
  },
})
