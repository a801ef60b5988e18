// The slabscope CLI, as the e2e tests call it to check the page's numbers.

import { execFileSync } from 'node:child_process';

export function cliGeometry(args: string[]): Record<string, unknown> {
  const out = execFileSync(
    'cargo',
    ['run', '-q', '--manifest-path', 'wasm-core/Cargo.toml', '-p', 'slabscope-cli', '--', 'geometry', ...args, '--json'],
    { encoding: 'utf8' },
  );
  return JSON.parse(out);
}

/** `slabscope run FILE --trace json`, parsed. */
export function cliTrace(file: string): unknown {
  const out = execFileSync('cargo', ['run', '-q', '--manifest-path', 'wasm-core/Cargo.toml', '-p', 'slabscope-cli', '--', 'run', file, '--trace', 'json'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(out);
}

/** `slabscope explore FILE --json`, parsed. */
export function cliExplore(file: string): { schedules: number; cut_short: boolean; groups: { schedules: number; damage: unknown[] }[] } {
  const out = execFileSync('cargo', ['run', '-q', '--manifest-path', 'wasm-core/Cargo.toml', '-p', 'slabscope-cli', '--', 'explore', file, '--json'], {
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

/** `slabscope compare FILE --profiles A,B`: the table as it prints it. */
export function cliCompareProfiles(file: string, a: string, b: string): string {
  return execFileSync('cargo', ['run', '-q', '--manifest-path', 'wasm-core/Cargo.toml', '-p', 'slabscope-cli', '--', 'compare', file, '--profiles', `${a},${b}`], {
    encoding: 'utf8',
  });
}
