// Lints for the TypeScript side. Besides the usual rules, two boundaries of the design are
// enforced here (see the design notes in README.md):
//  - only web/core/ imports the wasm packages;
//  - web/views/ draws from data alone: no React, no simulator client, no wasm.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const wasmImport = {
  group: ['**/wasm/pkg-*', '**/wasm/pkg-*/**'],
  message: 'Only web/core/ loads the wasm packages; use the SimClient from web/core/client.ts.',
};

export default tseslint.config(
  {
    ignores: ['dist/', 'web/wasm/', 'web/core/generated/', 'wasm-core/target/', 'test-results/', 'playwright-report/', 'node_modules/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', { patterns: [wasmImport] }],
    },
  },
  {
    files: ['web/core/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['web/views/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'react', message: 'Views are pure functions of data to SVG; React lives in web/components/.' },
            { name: 'react-dom', message: 'Views are pure functions of data to SVG; React lives in web/components/.' },
          ],
          patterns: [
            wasmImport,
            { group: ['**/core/client', '**/core/simWorker', '**/core/poolWorker'], message: 'Views take data, never the simulator.' },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'e2e/**', '*.config.*', 'eslint.config.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // A function past 100 lines (blank lines and comments not counted, as the Rust side's clippy
    // `too_many_lines` counts them at its default) usually holds several things that want names
    // of their own. One that is a single thing in order (a layout placing every part of one
    // drawing) keeps its length and says why in an eslint-disable-next-line.
    files: ['web/**', 'scripts/**'],
    rules: { 'max-lines-per-function': ['warn', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    // A test file's long functions are `describe` callbacks: their length is the number of cases
    // they hold, not the logic of one function.
    files: ['**/*.test.{ts,tsx,mjs}', 'e2e/**'],
    rules: { 'max-lines-per-function': 'off' },
  },
);
