import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The gateway serves the API, the chat and planning websockets (under /api) and socket.io.
// CHRONICLER_API_TARGET points the dev server somewhere else (another port, a mock).
const apiTarget = process.env.CHRONICLER_API_TARGET ?? 'http://localhost:8000';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: true, ws: true },
      '/socket.io': { target: apiTarget, changeOrigin: true, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
});
