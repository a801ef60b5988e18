// The HTTP headers every Slabscope server sends: the dev and preview servers (vite.config.ts),
// and static hosts that read public/_headers (kept equal to this by a unit test).
//
// COOP + COEP make the page cross-origin isolated, which is what lets the threaded wasm build
// share memory between workers. The CSP allows no inline script; 'wasm-unsafe-eval' is the
// narrow permission WebAssembly compilation needs.

/** Content-Security-Policy: scripts only from this origin, no inline script. */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  // React and D3 set element styles; Vite's dev server injects CSS as <style> elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws: wss:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Headers that make the page cross-origin isolated. */
export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Everything a server sends when isolation is wanted. */
export const securityHeaders = {
  ...isolationHeaders,
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
};
