// Drawing the open game: the table (table.js, with moves animated by motion.js), the header's counters and
// buttons, and the marks of the selection.

import { duration, t } from './i18n.js';
import { animateFrom, snapshot } from './motion.js';
import { showSelection } from './selection.js';
import { $, elapsed, isOver, state, variant, variantName, view } from './state.js';
import { drawTable } from './table.js';
import { syncClock } from './clock.js';

export function render({ animate = true } = {}) {
  const table = $('table');
  const v = variant();
  if (!state.game || !v) {
    table.replaceChildren();
    return;
  }
  // A keyboard player keeps their place across the redraw; a mouse or finger leaves no focus ring behind.
  const active = document.activeElement?.closest?.('#table [data-pile]');
  const focused = active && active.matches(':focus-visible') ? active.dataset.pile : null;
  const before = animate ? snapshot(table) : null;
  drawTable(table, v, view(), state.revealed, state.game.options);
  if (before) animateFrom(table, before);
  table.classList.toggle('over', isOver());
  for (const p of table.querySelectorAll('.pile[data-pile]')) {
    p.tabIndex = 0;
    p.setAttribute('role', 'button');
  }
  if (focused) table.querySelector(`.pile[data-pile="${focused}"]`)?.focus({ preventScroll: true });
  controls();
}

/** How the game was dealt, when that is worth a word on the table: deal #N, a replay, a winnable deal. */
function dealtTag(g) {
  if (g.dealt === 'public' && g.dealNumber) return t('deal.public', { n: g.dealNumber });
  if (g.dealt === 'replay' || g.dealt === 'winnable') return t(`deal.${g.dealt}`);
  return '';
}

/** The header, the buttons and the marks on the table: all that changes when only the legal moves do. */
export function controls() {
  const v = variant();
  if (!state.game || !v) return;
  const g = state.game;
  $('game-title').textContent = [variantName(v), dealtTag(g)].filter(Boolean).join(' · ');
  document.body.dataset.dealt = g.dealt || '';
  $('moves').textContent = String(g.moveCount || 0);
  $('undos').textContent = String(g.undoCount || 0);
  tick();
  const status = $('status');
  status.textContent = t(`status.${g.status}`) === `status.${g.status}` ? '' : t(`status.${g.status}`);
  status.className = `status ${g.status === 'GAME_STATUS_WON' ? 'won' : g.status === 'GAME_STATUS_STUCK' ? 'stuck' : ''}`;
  const watching = Boolean(state.watching);
  $('btn-undo').disabled = isOver() || watching || !g.allowUndo || !(g.moveCount > 0);
  $('btn-redo').disabled = isOver() || watching || !state.redo.length;
  $('btn-resign').disabled = isOver() || watching;
  $('btn-restart').disabled = isOver() || watching;
  // After the end, Resign's place in the bar opens the result again (its replay, its line, its checks, its link).
  $('btn-resign').hidden = isOver();
  $('btn-result').hidden = !isOver();
  syncClock();
  watchExpiry(g);
  hintButton();
  $('btn-auto').disabled = isOver() || watching;
  $('hints').textContent = String(g.hintCount || 0);
  // A game its player opened to spectators: the menu links to its live page (spectate.js).
  $('watch-link').hidden = !g.watchable || Boolean(state.spectating);
  $('watch-link').href = `/?watch=${encodeURIComponent(g.gameId)}`;
  document.body.dataset.version = String(g.version);
  document.body.dataset.game = g.gameId;
  document.body.dataset.status = g.status;
  showSelection();
}

let expiry = null;

/** At the time the server said the game expires if nobody moves, the page asks the server how it stands. */
function watchExpiry(g) {
  clearTimeout(expiry);
  expiry = null;
  const at = Date.parse(g.expiresAt || '');
  if (isOver() || !Number.isFinite(at)) return;
  expiry = setTimeout(() => document.dispatchEvent(new CustomEvent('patience:expiry', { detail: g.gameId })), Math.min(Math.max(at - Date.now() + 1000, 1000), 2 ** 31 - 1));
}

/** The Hint button: off while a hint is out, until a busy server's retry time, and when no move is left. */
export function hintButton() {
  const wait = state.hinting || Date.now() < state.hintRetryAt;
  $('btn-hint').disabled = isOver() || Boolean(state.watching) || wait || state.legal.length === 0;
}

export function tick() {
  $('timer').textContent = state.game ? duration(elapsed()) : '0:00';
}
