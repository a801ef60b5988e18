// The servers the end-to-end tests start (playwright.config.ts) and open. Their ports are free
// ones, found when the run starts (playwright.config.ts sets E2E_PORTS, "isolated,dev,plain", and
// the test workers inherit it), so `npm test` runs beside `npm start`, `npm run dev`, or anything
// else serving on this machine.

const [isolated, dev, plain] = (process.env.E2E_PORTS ?? '4373,5373,4374').split(',').map(Number);

export const ISOLATED_PORT = isolated;
export const DEV_PORT = dev;
export const PLAIN_PORT = plain;

/** `vite preview`: cross-origin isolated (COOP/COEP/CSP), the threaded build runs. */
export const ISOLATED = `http://localhost:${ISOLATED_PORT}/`;
/** `vite` (the dev server): the same headers, modules served unbundled. */
export const DEV = `http://localhost:${DEV_PORT}/`;
/** A static host without special headers: the single-threaded build runs. */
export const PLAIN = `http://127.0.0.1:${PLAIN_PORT}/`;
