// The web app is built into static files (dist/) that the gateway serves at `/`; `npm start` builds it
// when it is missing or stale. In development, `npm run dev -w web` proxies the API to a running Verdict.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.VERDICT_URL ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // The first page must stay small (docs/web.md): charts and each page come as chunks when needed.
    chunkSizeWarningLimit: 700,
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/downloads', '/trace-viewer'].map((prefix) => [prefix, { target: api, changeOrigin: false }]),
    ),
  },
});
