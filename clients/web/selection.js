// The selection and where it may go: the cards picked up (select, deselect), the piles the legal moves allow lit
// up, and the move text a click on a pile means (a legal one when there is one, else as the player meant it, for the server to
// explain).

import { cardLabel } from './cards.js';
import { t } from './i18n.js';
import { $, isColumn, pileCards, say, state, variant, view } from './state.js';

export function clearMarks() {
  for (const n of $('table').querySelectorAll('.selected, .target, .hint, .hint-card')) n.classList.remove('selected', 'target', 'hint', 'hint-card');
}

export function showSelection() {
  clearMarks();
  if (state.batch.length) {
    showBatch();
    return;
  }
  const sel = state.selection;
  if (!sel) return;
  const table = $('table');
  const pileEl = table.querySelector(`[data-pile="${sel.pile}"]`);
  if (!pileEl) return;
  for (const c of pileEl.querySelectorAll('.card[data-pos]')) {
    if (Number(c.dataset.pos) >= sel.pos) c.classList.add('selected');
  }
  for (const id of targetsOf(sel)) table.querySelector(`.pile[data-pile="${id}"]`)?.classList.add('target');
}

/** A batch of free cards for one reserve move: the last k cards of a column named k times are selected. */
function showBatch() {
  const table = $('table');
  const counts = new Map();
  for (const c of state.batch) counts.set(c, (counts.get(c) || 0) + 1);
  for (const [col, k] of counts) {
    const n = pileCards(col).length;
    for (const card of table.querySelectorAll(`.pile[data-pile="${col}"] .card[data-pos]`)) {
      if (Number(card.dataset.pos) >= n - k) card.classList.add('selected');
    }
  }
  const empty = view().cells.map((c, i) => (c ? null : `r${i + 1}`)).filter(Boolean);
  if (empty.length >= state.batch.length) {
    for (const id of empty) table.querySelector(`.pile[data-pile="${id}"]`)?.classList.add('target');
  }
}


export function movesFrom(sel) {
  return state.legal.filter((m) => m.sources.length === 1 && m.sources[0] === sel.pile);
}

function countFits(m, sel) {
  if (isColumn(sel.pile)) return (m.count ?? 1) === sel.count || (sel.count === 1 && isColumn(m.target));
  return true;
}

/** Where the selection may go: the targets of its legal moves (every empty cell when one empty cell is). */
export function targetsOf(sel) {
  const out = new Set();
  const v = view();
  for (const m of movesFrom(sel)) {
    if (!countFits(m, sel)) continue;
    if (m.target === 'k') {
      const i = v.foundations.findIndex((f) => !(f.cards || []).length);
      if (i >= 0) out.add(`f${i + 1}`);
    } else if (m.target[0] === 'r' && !pileCards(m.target).length) {
      v.cells.forEach((c, i) => {
        if (!c) out.add(`r${i + 1}`);
      });
    } else {
      out.add(m.target);
    }
  }
  return out;
}

/** The move text for the selection onto pile ``target``: a legal one if there is one, else as the player meant it. */
export function moveText(sel, target) {
  const family = variant().family;
  let wanted = target;
  if (family === 'captives' && target[0] === 'f' && !pileCards(target).length) wanted = 'k';
  const emptyCell = target[0] === 'r' && !pileCards(target).length;
  const candidates = movesFrom(sel).filter(
    (m) => m.target === wanted || (emptyCell && m.target[0] === 'r' && !pileCards(m.target).length),
  );
  const exact = candidates.filter((m) => (m.count ?? 1) === sel.count || !isColumn(sel.pile));
  const chosen = exact.length ? exact[0] : candidates.length === 1 ? candidates[0] : null;
  if (chosen) return chosen.target === wanted ? chosen.text : chosen.text.replace(/-r\d+/, `-${target}`);
  const run = isColumn(sel.pile) && isColumn(wanted) ? `/${sel.count}` : '';
  return `${sel.pile}-${wanted}${run}`;
}

/** The foundation move for the selection (a king to the king row in Captives), if there is one. */
export function homeMove(sel) {
  if (sel.count !== 1) return null;
  return movesFrom(sel).find((m) => (m.target[0] === 'f' || m.target === 'k') && m.sources[0] !== m.target && (m.count ?? 1) === 1) || null;
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
