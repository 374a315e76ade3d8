// The Hint button (and H): the server's move for this position, marked on the table with its reason in words.
// A hint can take the server a second or more: meanwhile the button says it is busy (aria-busy, a "thinking"
// line) and takes no second request, the table stays playable, and an answer for a position the table has
// left is dropped. A busy server (HINTS_BUSY) says when to ask again; the button comes back then.

import { api, ApiError } from './api.js';
import { cardLabel } from './cards.js';
import { controls, hintButton } from './draw.js';
import { t } from './i18n.js';
import { reasonCode } from './messages.js';
import { refused } from './play.js';
import { deselect } from './selection.js';
import { $, isColumn, isOver, parseLegal, pileCards, say, state, view } from './state.js';

/** The page's pile for a hinted move's target ("r" and "k" name the first empty cell and the king row). */
function targetPile(id) {
  if (id === 'r') {
    const i = view().cells.findIndex((c) => !c);
    return i >= 0 ? `r${i + 1}` : '';
  }
  return id;
}

/** Why the server hints a move, in the page's language, from its reason code (never the code itself). */
function hintReason(h) {
  const key = `hint.${reasonCode(h.reasonCode)}`;
  const text = t(key, { wins: h.wins || 0, tried: h.tried || 0, moves: h.movesToEnd || 0, n: h.movesToEnd || 0 });
  return text === key ? '' : text;
}

/** The button's busy look, and the page's flag that keeps a second request from leaving. */
function busy(on) {
  state.hinting = on;
  const button = $('btn-hint');
  if (on) button.setAttribute('aria-busy', 'true');
  else button.removeAttribute('aria-busy');
  document.body.dataset.hinting = String(on);
  hintButton();
}

/** HINTS_BUSY, HINTS_IN_PROGRESS: say when to ask again, keep the button off until then. */
function waitToRetry(err) {
  const seconds = Math.max(1, Math.ceil(err.retryAfter ?? 1));
  state.hintRetryAt = Date.now() + seconds * 1000;
  say(t('msg.hints-busy', { n: seconds }), 'refused');
  document.body.dataset.lastReason = err.reason;
  hintButton();
  setTimeout(() => {
    state.hintRetryAt = 0;
    hintButton();
  }, seconds * 1000);
}

/** Mark the hinted move on the table and say it, with its reason. */
function show(h) {
  state.game.hintCount = h.hintCount ?? (state.game.hintCount || 0) + 1;
  deselect();
  controls();
  if (!h.move) {
    say(hintReason(h) || t('hint.NO_MOVE'), 'info');
    return;
  }
  const best = parseLegal(h.move);
  const table = $('table');
  for (const s of best.sources) table.querySelector(`[data-pile="${s}"]`)?.classList.add('hint');
  const target = targetPile(best.target);
  if (target) table.querySelector(`[data-pile="${target}"]`)?.classList.add('target');
  if (!best.sources.length) table.querySelector('.pile[data-pile="stock"]')?.classList.add('hint', 'target');
  const source = best.sources.length === 1 ? pileCards(best.sources[0]) : [];
  const from = source.length - (isColumn(best.sources[0]) ? best.count || 1 : 1);
  const card = source.length ? source[Math.max(from, 0)] : null;
  if (card) {
    for (const c of table.querySelectorAll(`.pile[data-pile="${best.sources[0]}"] .card[data-pos]`)) {
      if (Number(c.dataset.pos) >= from) c.classList.add('hint-card');
    }
  }
  const why = hintReason(h);
  const stock = { d: 'stock.deal', s: 'stock.turn', rd: 'stock.redeal' }[best.text];
  const move = card ? t('hint.card', { card: cardLabel(card), move: best.text }) : stock ? t(stock) : best.text;
  say(why ? t('msg.hint-why', { move, why }) : t('msg.hint', { move }), 'hint');
  document.body.dataset.hint = best.text;
}

/** The table moved on while the server thought: the answer (or refusal) is for a position that is gone. */
function drop(version, thinking) {
  document.body.dataset.hintDropped = String(version);
  if ($('message').textContent === thinking) say('');
}

export async function hint() {
  if (state.hinting || state.busy || state.watching || isOver() || Date.now() < state.hintRetryAt) return;
  const { gameId, version } = state.game;
  const thinking = t('msg.thinking');
  busy(true);
  say(thinking, 'info');
  const asked = () => state.game && state.game.gameId === gameId && String(state.game.version) === String(version);
  try {
    const h = await api.hint(gameId, state.token);
    if (!asked() || String(h.version) !== String(version)) drop(version, thinking);
    else show(h);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (!asked()) drop(version, thinking);
    else if (err.reason === 'HINTS_BUSY' || err.reason === 'HINTS_IN_PROGRESS') waitToRetry(err);
    else await refused(err);
  } finally {
    busy(false);
  }
}
