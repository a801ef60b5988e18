// The kernel file a scenario's `print` line shows (format 2), named by its path as the kernel
// names it. The simulator reads the file; this only names it for the player.

import type { PrintFile } from '../core/generated/PrintFile';

/** `/proc/slabinfo`, `/proc/buddyinfo` or `/sys/kernel/slab/<cache>/`. */
export function printPath(file: PrintFile): string {
  switch (file.kind) {
    case 'slabinfo':
      return '/proc/slabinfo';
    case 'buddyinfo':
      return '/proc/buddyinfo';
    case 'sysfs':
      return `/sys/kernel/slab/${file.cache}/`;
  }
}
