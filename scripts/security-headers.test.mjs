import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, securityHeaders } from './security-headers.mjs';

describe('security headers', () => {
  it('public/_headers sends exactly what the dev and preview servers send', () => {
    const lines = readFileSync(new URL('../public/_headers', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim());
    const parsed = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
    expect(parsed).toEqual(securityHeaders);
  });

  it('allows no inline or eval script, only wasm compilation', () => {
    const script = contentSecurityPolicy.split('; ').find((d) => d.startsWith('script-src'));
    expect(script).toBe("script-src 'self' 'wasm-unsafe-eval'");
    expect(contentSecurityPolicy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  });
});
