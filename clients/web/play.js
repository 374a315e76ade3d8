// Playing a game: moves, undo, redo, auto-play and resign go to the server, and after every change the game is
// kept, its legal moves fetched, or its result shown; a refusal is explained, an unreachable server waited for.
// What a click on the table means is clicks.js's, dealing and starting a game dealing.js's.

import { api, ApiError } from './api.js';
import { cardLabel } from './cards.js';
import { controls, render } from './draw.js';
import { allCanGoHome, homeLine } from './finish.js';
import { t } from './i18n.js';
import { explain } from './messages.js';
import { pause } from './motion.js';
import { showResult } from './result.js';
import { deselect, showSelection } from './selection.js';
import { isColumn, isOver, parseLegal, pileCards, say, state, variant, view } from './state.js';
import * as store from './storage.js';

/** Whether the player may act on the table now: a game on, no call of theirs in flight, no line being shown. */
export const idle = () => !isOver() && !state.busy && !state.watching;

export async function play(text) {
  if (!idle()) return;
  state.busy = true;
  state.selection = null;
  state.batch = [];
  try {
    const response = await api.applyMove(state.game.gameId, state.token, state.game.version, text);
    state.game = response.game;
    state.legal = [];
    // Redo plays the last move undone; any other move forgets the moves undone.
    if (state.redo.length && state.redo[state.redo.length - 1] === text) state.redo.pop();
    else state.redo = [];
    render();
    say('');
    if (!isOver() && !canFinish() && store.setting('autodrop') === 'on') await autoDrop();
    if (canFinish()) await finish();
    else await afterChange();
  } catch (err) {
    await refused(err, text);
  } finally {
    state.busy = false;
  }
}

/** Whether the game can finish on its own: nothing hidden, and every card left goes home by foundation moves. */
function canFinish() {
  const v = variant();
  return !isOver() && Boolean(v) && allCanGoHome(view(), v.family, v.deckSize || 104);
}

/**
 * Finish the game on its own (finish.js says every card left goes home): AutoPlay sends the safe moves in one
 * call, then the rest of finish.js's line home follows one move at a time, each drawn and animated like the
 * player's own, until the game is won.
 */
async function finish() {
  say(t('msg.finishing'), 'info');
  document.body.dataset.finished = 'auto';
  settled(); // the player's own move is drawn; what follows is the page's
  try {
    const response = await api.autoPlay(state.game.gameId, state.token, state.game.version);
    state.game = response.game;
    render();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  }
  const v = variant();
  for (const text of isOver() ? [] : homeLine(view(), v.family, v.deckSize || 104) || []) {
    await pause();
    try {
      const response = await api.applyMove(state.game.gameId, state.token, state.game.version, text);
      state.game = response.game;
    } catch (err) {
      await refused(err, text);
      return;
    }
    state.legal = [];
    render();
  }
  await afterChange();
}

/**
 * Auto-drop (More → Send safe cards home after every move; off unless the player switches it on): after a move
 * of the player's, AutoPlay sends home every card that can safely go (it can never spoil a win), as PySol's
 * auto-drop does. The cards slide home like any move; Undo takes them back one by one.
 */
async function autoDrop() {
  try {
    const response = await api.autoPlay(state.game.gameId, state.token, state.game.version);
    const n = (response.applied || []).length;
    if (!n) return;
    state.game = response.game;
    state.redo = [];
    await pause();
    render();
    document.body.dataset.autoDropped = String(Number(document.body.dataset.autoDropped || 0) + n);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  }
}

/** The Auto-play button (and A): every safe move to the foundations, in one call, animated as one change. */
export async function autoPlay() {
  if (!idle()) return;
  state.busy = true;
  deselect();
  try {
    const response = await api.autoPlay(state.game.gameId, state.token, state.game.version);
    state.game = response.game;
    state.legal = [];
    state.redo = [];
    render();
    const n = (response.applied || []).length;
    say(n ? t('msg.auto-done', { n }) : t('msg.auto-none'), 'info');
    document.body.dataset.autoApplied = String(n);
    if (canFinish()) await finish();
    else await afterChange();
  } catch (err) {
    await refused(err);
  } finally {
    state.busy = false;
  }
}

const MOVE = /^(r?\d+|w|c\d+|f\d+)-(r\d*|f\d*|k|\d+)(?:\/(\d+))?$/;

/** A move as a player reads it: the card it takes and where it goes ("2♣ → 10♥", "7♥ → column 4"), or ''. */
export function moveWords(text) {
  const m = MOVE.exec(text);
  if (!m || !state.game) return '';
  const [, source, target, count] = m;
  const from = pileCards(source);
  if (!from.length) return '';
  const card = from[isColumn(source) && count ? Math.max(0, from.length - Number(count)) : from.length - 1];
  if (!card || card === '??') return '';
  let where = '';
  if (isColumn(target)) {
    const onto = pileCards(target);
    where = onto.length && onto[onto.length - 1] !== '??' ? cardLabel(onto[onto.length - 1]) : t('pile.column', { n: target });
  } else if (target[0] === 'f') where = target.length > 1 ? t('pile.foundation', { n: target.slice(1) }) : t('group.foundations');
  else if (target[0] === 'r') where = target.length > 1 ? t('pile.cell', { n: target.slice(1) }) : t('group.reserve');
  else if (target === 'k') where = t('group.king-row');
  return `${cardLabel(card)} → ${where}`;
}

export async function refused(err, text = '') {
  if (!(err instanceof ApiError)) throw err;
  if (err.reason === 'STALE_VERSION' || err.reason === 'GAME_EXPIRED' || err.reason === 'GAME_OVER') {
    // The game is not where this page thought: drawn again as the server has it (an expired game: its end).
    await reload();
    say(explain(err), 'refused');
    return;
  }
  if (err.reason === 'UNREACHABLE') waitForServer();
  document.body.dataset.lastReason = err.reason;
  document.body.dataset.refusals = String(Number(document.body.dataset.refusals || 0) + 1);
  const move = text ? moveWords(text) : '';
  say(move ? t('msg.refused-move', { move, why: explain(err) }) : explain(err), 'refused');
  showSelection();
  settled();
}

/** After every change: save, fetch the legal moves (or show the result), then mark the page settled. */
export async function afterChange() {
  // A game opened with the player's identity (My games) keeps no key of its own: the identity opens it.
  const key = state.token && state.token.startsWith('pgt_') ? { token: state.token } : { mine: true };
  store.keepGame(state.game.gameId, { ...key, variant: state.game.variant });
  if (state.game.status === 'GAME_STATUS_WON') {
    say(t('msg.won'), 'win');
    await showResult();
  } else if (isOver()) {
    await showResult();
  } else {
    await refreshLegal();
    if (state.game.status === 'GAME_STATUS_STUCK') say(t('msg.stuck'), 'info');
  }
  settled();
}

/** For people nothing; for the browser tests the version the page has finished drawing. */
function settled() {
  document.body.dataset.settled = String(state.game.version);
}

async function refreshLegal() {
  const version = state.game.version;
  try {
    const response = await api.legalMoves(state.game.gameId, state.token);
    if (String(response.version) !== String(version) || String(state.game.version) !== String(version)) return;
    state.legal = (response.moves || []).map(parseLegal);
  } catch (err) {
    state.legal = [];
    if (err instanceof ApiError) say(explain(err), 'refused');
  }
  document.body.dataset.legal = String(state.legal.length);
  controls();
}

let waiting = null;

/**
 * The server could not be reached: the page asks again every few seconds, and when it answers says so and draws
 * the game as the server has it (a move may or may not have arrived before the line went down).
 */
export function waitForServer() {
  if (waiting) return;
  document.body.dataset.server = 'gone';
  waiting = setInterval(async () => {
    try {
      await api.listVariants();
    } catch (err) {
      return;
    }
    clearInterval(waiting);
    waiting = null;
    document.body.dataset.server = 'back';
    if (state.game && state.token) {
      try {
        await reload();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
      }
    }
    say(t('msg.server-back'), 'info');
  }, 3000);
}

export async function reload() {
  const response = await api.getGame(state.game.gameId, state.token);
  state.game = response.game;
  state.selection = null;
  render();
  await afterChange();
}

export async function undo() {
  if (!idle()) return;
  state.busy = true;
  try {
    const response = await api.undoMove(state.game.gameId, state.token, state.game.version);
    state.game = response.game;
    state.selection = null;
    state.legal = [];
    if (response.undone && response.undone.text) state.redo.push(response.undone.text);
    render();
    say(response.undone ? t('msg.took-back', { move: moveWords(response.undone.text) || response.undone.text }) : '');
    await afterChange();
  } catch (err) {
    await refused(err);
  } finally {
    state.busy = false;
  }
}

/** Redo (the button, Ctrl+Y or Ctrl+Shift+Z): the last move undone, played again. */
export function redo() {
  if (!idle() || !state.redo.length) return;
  play(state.redo[state.redo.length - 1]);
}

export async function resign() {
  if (!idle()) return;
  if (!window.confirm(t('msg.resign-confirm'))) return;
  state.busy = true;
  try {
    const response = await api.resign(state.game.gameId, state.token, state.game.version);
    state.game = response.game;
    say(''); // a hint or a refusal of the game in play says nothing about its end
    render();
    await afterChange();
  } catch (err) {
    await refused(err);
  } finally {
    state.busy = false;
  }
}
