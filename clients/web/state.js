// The page's state and the small helpers every part of the controller reads: which game is open, its key, its
// legal moves, the selection; pile ids in the move notation; the message line. It holds only what the API sends
// a player: the view (hidden cards as counts), the legal moves, and the seed once the game is over.

import { lang } from './i18n.js';

export const $ = (id) => document.getElementById(id);

const PREFIX = {
  PILE_KIND_COLUMN: '',
  PILE_KIND_RESERVE: 'r',
  PILE_KIND_FOUNDATION: 'f',
  PILE_KIND_WASTE: 'w',
  PILE_KIND_CAPTIVE: 'c',
  PILE_KIND_KING_ROW: 'k',
};
export const OVER = new Set(['GAME_STATUS_WON', 'GAME_STATUS_RESIGNED', 'GAME_STATUS_EXPIRED', 'GAME_STATUS_FORFEITED']);

export const state = {
  variants: [],
  byId: new Map(),
  game: null,
  token: null,
  legal: [],
  selection: null, // { pile, pos, count }
  batch: [], // columns whose free cards go to the reserve together ("3,5,5-r"), king-chain games only
  busy: false,
  hinting: false, // a hint is being computed (the button shows it; no second request leaves)
  hintRetryAt: 0, // after HINTS_BUSY: no hint asked before this time (ms)
  watching: null, // the server's winning line being played on a replay (watch.js)
  spectating: false, // another player's game followed live, read-only (spectate.js)
  revealed: null, // the hidden cards, once the game is over and its seed re-dealt
  redo: [], // the moves undone, last undone last: Redo plays them again; any other move forgets them
};

/**
 * The game's clock, the page's own: it starts at the first move, stops at the end, and does not run while the
 * page is hidden (another tab, a phone's screen off). ``ms`` is the time counted so far, ``since`` when it last
 * started running (or null). Kept in the browser with the game, so a reload goes on from where it was.
 */
export const clock = { id: null, ms: 0, since: null };

export function pileId(ref) {
  if (!ref) return '';
  const prefix = PREFIX[ref.kind] ?? '?';
  if (prefix === 'w' || prefix === 'k') return prefix;
  return `${prefix}${ref.index ?? ''}`;
}

export function parseLegal(entry) {
  const m = entry.move || {};
  return {
    text: entry.text,
    kind: m.kind,
    sources: (m.sources || []).map(pileId),
    target: pileId(m.target),
    count: m.count,
  };
}

export function say(text, kind = 'info') {
  const box = $('message');
  delete box.dataset.pick;
  box.textContent = text;
  box.className = `message ${text ? kind : ''}`.trim();
}

export const variant = () => (state.game ? state.byId.get(state.game.variant) : null);
export const view = () => state.game.view;
export const isColumn = (id) => /^\d+$/.test(id);
export const isOver = () => !state.game || OVER.has(state.game.status);
export const variantName = (v) => (v ? (lang() === 'ru' ? v.nameRu : v.nameEn) || v.id : '');

export function pileCards(id) {
  const v = view();
  if (isColumn(id)) return (v.columns[Number(id) - 1] || {}).cards || [];
  if (id[0] === 'r') return v.cells[Number(id.slice(1)) - 1] ? [v.cells[Number(id.slice(1)) - 1]] : [];
  if (id[0] === 'f') return (v.foundations[Number(id.slice(1)) - 1] || {}).cards || [];
  if (id === 'w') return v.waste || [];
  if (id[0] === 'c') {
    const c = (v.captives || [])[Number(id.slice(1)) - 1];
    return c && c !== '??' ? [c] : [];
  }
  return [];
}

/** Seconds played, by the page's clock: from the first move to the end, the time the page was hidden left out. */
export function elapsed() {
  return (clock.ms + (clock.since === null ? 0 : performance.now() - clock.since)) / 1000;
}

/** Seconds by the server's clock, from the deal to the end: for a game this browser has no clock of. */
export function serverElapsed(g) {
  if (!g || !g.createdAt) return 0;
  const end = g.finishedAt ? Date.parse(g.finishedAt) : OVER.has(g.status) ? Date.parse(g.updatedAt) : Date.now();
  return Math.max(0, (end - Date.parse(g.createdAt)) / 1000);
}

export function gameUrl(id) {
  return `/?game=${encodeURIComponent(id)}`;
}

export function closeMenu() {
  $('menu').open = false;
}
