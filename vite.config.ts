import { defineConfig } from 'vitest/config';
import { securityHeaders } from './scripts/security-headers.mjs';

// The app lives in web/; static files in public/; the build in dist/.
export default defineConfig({
  root: 'web',
  publicDir: '../public',
  base: './',
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
  },
  worker: { format: 'es' },
  server: { headers: securityHeaders, port: 5173 },
  preview: { headers: securityHeaders, port: 4173 },
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    root: '.',
    include: ['web/**/*.test.ts', 'scripts/**/*.test.mjs', 'lessons/**/*.test.ts'],
    environment: 'node',
  },
});
