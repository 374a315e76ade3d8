// Playing a game: a click, tap, drag or key on the table becomes a selection or a move; moves, undo and
// resign go to the server, and after every change the game is kept, its legal moves fetched, or its result
// shown.

import { api, ApiError } from './api.js';
import { cardLabel } from './cards.js';
import { controls, render } from './draw.js';
import { allCanGoHome, homeLine } from './finish.js';
import { t } from './i18n.js';
import { explain } from './messages.js';
import { pause } from './motion.js';
import { showResult } from './result.js';
import { homeMove, moveText, showSelection, targetsOf } from './selection.js';
import { $, gameUrl, isColumn, isOver, parseLegal, pileCards, say, state, variant, view } from './state.js';
import { loadClock } from './clock.js';
import * as store from './storage.js';

/** Whether the player may act on the table now: a game on, no call of theirs in flight, no line being shown. */
const idle = () => !isOver() && !state.busy && !state.watching;

/** Shift-click (or Shift+Enter) on a column: its next free card joins the batch bound for the reserve. */
function addToBatch(column) {
  if (!state.batch.length && state.selection && isColumn(state.selection.pile) && state.selection.count === 1) {
    state.batch.push(state.selection.pile);
  }
  state.selection = null;
  const taken = state.batch.filter((c) => c === column).length;
  if (state.batch.length < 8 && taken < pileCards(column).length) state.batch.push(column);
  showSelection();
  say(t('msg.batch', { n: state.batch.length, text: `${state.batch.join(',')}-r` }));
}

export function select(pile, pos) {
  const cards = pileCards(pile);
  if (!cards.length || pos < 0 || pos >= cards.length) return;
  state.batch = [];
  state.selection = { pile, pos, count: cards.length - pos };
  showSelection();
  const card = cardLabel(cards[pos]);
  const more = state.selection.count - 1;
  say(targetsOf(state.selection).size ? t(more ? 'msg.pick-run' : 'msg.pick', { card, more }) : '');
  $('message').dataset.pick = 'true';
}

/** Let go of the selection; "pick where it goes" goes with it (a message about anything else stays). */
export function deselect() {
  state.selection = null;
  state.batch = [];
  showSelection();
  if ($('message').dataset.pick) say('');
}

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


/** The stock: deal or turn a card, or redeal; an exhausted stock says so instead of sending a move that cannot be. */
function stockAction() {
  if (isOver()) return;
  const texts = new Set(state.legal.map((m) => m.text));
  for (const text of ['d', 's', 'rd']) if (texts.has(text)) return play(text);
  const v = view();
  if ((v.stockCount || 0) > 0) return play(variant().family === 'salic-law' ? 'd' : 's');
  // An empty stock that cannot be redealt now (no redeal left, or nothing to gather): no move to send.
  say(t((v.redealsLeft || 0) > 0 ? 'msg.stock-empty' : 'msg.stock-done'), 'info');
  return undefined;
}


/** Send the top card of ``pile`` (or the selection) to a foundation: the double-click, double-tap and F key. */
export function sendHome(pile = null) {
  if (!idle()) return false;
  const sel = pile ? { pile, pos: pileCards(pile).length - 1, count: 1 } : state.selection;
  if (!sel || sel.pos < 0) return false;
  const home = homeMove(sel);
  if (home) {
    play(home.text);
    return true;
  }
  say(t('msg.nothing-home'), 'info');
  return false;
}

/** A click (or tap, or Enter) on something on the table. */
export function activate(node, multi = false) {
  if (!idle()) return;
  const pileEl = node.closest('[data-pile]');
  if (!pileEl) {
    deselect();
    return;
  }
  const id = pileEl.dataset.pile;
  if (multi && variant().family === 'king-chain' && isColumn(id)) {
    addToBatch(id);
    return;
  }
  if (state.batch.length) {
    const batch = state.batch;
    state.batch = [];
    if (id[0] === 'r') play(`${batch.join(',')}-r`);
    else showSelection();
    return;
  }
  if (id === 'stock') {
    deselect();
    stockAction();
    return;
  }
  if (id === 'k') {
    if (state.selection) play(moveText(state.selection, 'k'));
    return;
  }
  const cardEl = node.closest('.card[data-card]');
  const cards = pileCards(id);
  const sel = state.selection;
  if (sel) {
    if (id === sel.pile) {
      const pos = cardEl && isColumn(id) ? Number(cardEl.dataset.pos) : sel.pos;
      if (pos === sel.pos || pos < 0) {
        // The second click on the same card: home if it can go, else let go of it.
        const home = homeMove(sel);
        if (home) play(home.text);
        else {
          deselect();
          say(t('msg.nothing-home'), 'info');
        }
      } else {
        select(id, pos);
      }
      return;
    }
    play(moveText(sel, id));
    return;
  }
  // Only a column lends a run; elsewhere (waste, cells, foundations, captives) the top card is the one that moves.
  if (cardEl && isColumn(id)) select(id, Number(cardEl.dataset.pos));
  else if (cards.length) select(id, cards.length - 1);
}

/** The keyboard's ↑/↓ on a selected column: one card more or less of the run. */
export function stretch(delta) {
  const sel = state.selection;
  if (!sel || !isColumn(sel.pile)) return false;
  select(sel.pile, Math.min(pileCards(sel.pile).length - 1, Math.max(0, sel.pos - delta)));
  return true;
}

/**
 * NewGame (after PrepareGame when the player brings a seed), kept in the browser under its own URL. A game
 * dealt to ``watch`` the server's winning line on is kept, but never counted in the statistics.
 */
export async function dealGame(request, { watch = false, replace = false } = {}) {
  let serverCommitment = null;
  if (request.clientSeed) {
    // The server commits to its part before it sees ours: then neither side chose the deal.
    const prepared = await api.prepareGame();
    request.preparedId = prepared.preparedId;
    serverCommitment = prepared.serverSeedCommitment;
  }
  const signedIn = store.identity();
  const response = await api.newGame(request, signedIn ? signedIn.token : null);
  const g = response.game;
  const record = { token: response.gameToken, variant: g.variant, firstView: g.view, serverCommitment, dealt: Date.now() };
  store.keepGame(g.gameId, watch ? { ...record, watched: true } : record);
  if (store.counts(g)) store.countDeal(g);
  // A deal from a link takes the link's place in the history: Back leaves it, never to a table it does not show.
  if (replace) history.replaceState({ game: g.gameId }, '', gameUrl(g.gameId));
  else history.pushState({ game: g.gameId }, '', gameUrl(g.gameId));
  await start(g, response.gameToken);
}

/** "Play this deal again": a new game from the revealed seed of the game just over (marked as a replay). */
export async function playAgain() {
  const g = state.game;
  if (!g || !g.seed || !isOver()) return;
  try {
    await dealGame({ variant: g.variant, options: g.options || {}, allowUndo: Boolean(g.allowUndo), replaySeed: g.seed });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    say(explain(err), 'refused');
  }
}

export async function start(game, token) {
  for (const id of ['fair-status', 'deal-status']) delete $(id).dataset.ok;
  delete $('cert-status').dataset.valid;
  delete document.body.dataset.revealed;
  delete document.body.dataset.finished;
  state.game = game;
  state.token = token;
  state.selection = null;
  state.batch = [];
  state.legal = [];
  state.revealed = null;
  state.redo = [];
  state.watching = null; // a line being watched stops: this is another game (the back button, a link)
  $('watch').hidden = true;
  document.querySelector('.actions').hidden = false;
  $('result').hidden = true;
  say('');
  loadClock(game);
  render({ animate: false });
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

/**
 * Restart this deal: the game is resigned and its deal, its seed now revealed, dealt again from the start
 * (NewGame with ``replaySeed``, the same options and undo setting). The statistics count a restart, not a loss.
 */
export async function restart() {
  if (!idle()) return;
  if (!window.confirm(t('msg.restart-confirm'))) return;
  const old = state.game;
  state.busy = true;
  try {
    const response = await api.resign(old.gameId, state.token, old.version);
    const g = response.game;
    if (store.counts(g)) store.countRestart(g);
    state.busy = false;
    await dealGame({ variant: g.variant, options: g.options || {}, allowUndo: Boolean(g.allowUndo), replaySeed: g.seed });
    say(t('msg.restarted'), 'info');
  } catch (err) {
    state.busy = false;
    await refused(err);
  } finally {
    state.busy = false;
  }
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
