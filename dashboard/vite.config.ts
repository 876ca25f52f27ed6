import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { CSP_NONCE_PLACEHOLDER } from './csp-nonce.ts';
import { precompress } from './precompress.ts';

// The dashboard is served by the API at /app (api/dashboard/static.ts): Vite's
// middleware while developing, the files built into dashboard/dist otherwise.
export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  plugins: [react(), precompress()],
  // Mantine's run-time <style> elements take the nonce from the page (src/app/provider.tsx).
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Figures come from `npm run bench` (the sign-in page's JavaScript), not from this warning.
    chunkSizeWarningLimit: 1024,
  },
  server: { fs: { allow: ['..'] } },
});
