// The player as the lessons page draws it: from the page that loads the lessons, through
// this context, instead of by importing components/player/Player. The player loads parts of
// itself on demand (its export menu, help, kernel files, provenance lane); a module that loads
// chunks on demand and is imported both by the first script and by a page loaded later (the
// lessons page is) makes the bundler split what those chunks share out of the first script, which
// adds files and bytes before the first view. Handed down, the player stays in the first script
// only, and the lessons page uses that one.

import { createContext, type ReactNode } from 'react';
import type { PlayerProps } from './Player';

/** Draws the player with these props; the lessons page is rendered only inside a provider. */
export type RenderPlayer = (props: PlayerProps) => ReactNode;

export const PlayerComponent = createContext<RenderPlayer | null>(null);
