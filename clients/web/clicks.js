// What a click, tap or key on the table does (the controller input.js calls): a card picked up, a batch of free
// cards gathered for the reserve (Shift), a move sent, a card sent home, the stock dealt or turned.

import { t } from './i18n.js';
import { idle, play } from './play.js';
import { deselect, homeMove, moveText, select, showSelection } from './selection.js';
import { isColumn, isOver, pileCards, say, state, variant, view } from './state.js';

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
