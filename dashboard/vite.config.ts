import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { CSP_NONCE_PLACEHOLDER } from '../domain/dashboard/csp-nonce.ts';
import { precompress } from './precompress.ts';

// The dashboard is served by the API at /app (api/dashboard/static.ts): Vite's
// middleware while developing, the files built into dashboard/dist otherwise.
const CHECKOUT = join(import.meta.dirname, '..');

export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  plugins: [react(), precompress()],
  // Mantine's run-time <style> elements take the nonce from the page (src/lib/csp.ts).
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Figures come from `npm run bench` (the sign-in page's JavaScript), not from this warning.
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // Under `npm run dev`, Vite serves files by absolute path (/app/@fs/…): only
    // the dashboard's own, the shared domain/ code it imports and the packages.
    // Never the rest of the checkout: .data/ holds the database's files (live
    // session tokens), api/ the development secrets (docs/security.md#the-dev-server).
    fs: {
      strict: true,
      allow: [import.meta.dirname, join(CHECKOUT, 'domain'), join(CHECKOUT, 'node_modules')],
      // Vite's own list, and what no allowed folder should ever serve even by a link.
      deny: ['.env', '.env.*', '*.{crt,pem,key}', '**/.git/**', '**/.data/**', '**/.tools/**'],
    },
  },
});
