// The servers the end-to-end tests start (playwright.config.ts) and open. Their ports are their
// own, not those of `npm start` (4173) or `npm run dev` (5173), so `npm test` runs while the app
// is being served or developed on the same machine.

export const ISOLATED_PORT = 4373;
export const DEV_PORT = 5373;
export const PLAIN_PORT = 4374;

/** `vite preview`: cross-origin isolated (COOP/COEP/CSP), the threaded build runs. */
export const ISOLATED = `http://localhost:${ISOLATED_PORT}/`;
/** `vite` (the dev server): the same headers, modules served unbundled. */
export const DEV = `http://localhost:${DEV_PORT}/`;
/** A static host without special headers: the single-threaded build runs. */
export const PLAIN = `http://127.0.0.1:${PLAIN_PORT}/`;
