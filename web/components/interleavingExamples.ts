// The example scenarios of the interleaving explorer: golden scenarios of the simulator's test
// suite (wasm-core/run/tests/golden/), whose runs the Rust tests replay and compare, so every
// one of them parses and runs. Each is bundled as text in its own small chunk, fetched when it
// is explored; its name is a UI string (`interleavings.example.<id>`).

import type { ExampleId } from './exploreForm';

const files: Record<ExampleId, () => Promise<{ default: string }>> = {
  'smp-aba-no-tid': () => import('../../wasm-core/run/tests/golden/smp-aba-no-tid.slab?raw'),
  'smp-aba-tid': () => import('../../wasm-core/run/tests/golden/smp-aba-tid.slab?raw'),
  // Three CPUs allocating and freeing each other's objects: far more schedules than any bound
  // lets the page run, so its search is cut short.
  'smp-races': () => import('../../wasm-core/run/tests/golden/smp-races-seed8.slab?raw'),
};

/** The scenario text of an example. */
export async function exampleText(id: ExampleId): Promise<string> {
  return (await files[id]()).default;
}
