import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built into dist/console-app/, which the gateway serves at /console (src/console/console.route.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // JSX by the bundler's own transform (tsconfig.json's react-jsx); no plugin needed for a production build.
  build: {
    outDir: fileURLToPath(new URL('../dist/console-app', import.meta.url)),
    emptyOutDir: true,
    // Every asset a file with a hashed name: no data: URL, so the CSP's img-src stays closed.
    assetsInlineLimit: 0,
    target: 'es2022',
    // The gateway measures what it serves; Vite's report would print on every start.
    reportCompressedSize: false,
    // One chunk of about 540 kB (145 kB gzipped) is the console's whole first load; docs/benchmarks.md holds it to 300 kB compressed.
    chunkSizeWarningLimit: 700,
  },
  logLevel: 'warn',
});
