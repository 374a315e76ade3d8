// The game's clock, as patience players expect it: it starts at the first move (not at the deal), stops at the
// end, and stands still while the page is hidden (another tab, a phone's screen off). The time is kept in the
// browser with the game, so a reload goes on from where it was. The bar and the result read the same clock.

import { clock, isOver, serverElapsed, state } from './state.js';
import * as store from './storage.js';

/** Take up game ``g``'s clock: the time this browser kept for it, or (a game it never timed) none yet. */
export function loadClock(g) {
  const record = store.game(g.gameId) || {};
  clock.id = g.gameId;
  clock.since = null;
  // A game this browser never timed (dealt elsewhere, or before the page kept a clock) and already moved in:
  // the server's time from its deal, the best there is.
  if (typeof record.playMs === 'number') clock.ms = record.playMs;
  else clock.ms = g.moveCount > 0 ? serverElapsed(g) * 1000 : 0;
  syncClock();
}

/** Run or stop the clock as the game stands: running while a game is on, moved, watched by nobody, and seen. */
export function syncClock() {
  const g = state.game;
  if (!g || g.gameId !== clock.id) return;
  const on = !isOver() && g.moveCount > 0 && !document.hidden && !state.watching;
  const now = performance.now();
  if (on && clock.since === null) clock.since = now;
  if (!on && clock.since !== null) {
    clock.ms += now - clock.since;
    clock.since = null;
  }
  const ms = Math.round(clock.ms + (clock.since === null ? 0 : now - clock.since));
  store.keepGame(g.gameId, { playMs: ms });
}
