// Each family's table as players know it, drawn from the player's view (never more: hidden cards are
// only ever counts). Every pile carries data-pile in the move notation ("3", "r2", "f5", "w", "c3"),
// plus data-pile="stock" for the stock, so that a click maps straight to a move. Once a game is over the
// revealed cards (reveal.js) are drawn face up, marked as revealed.

import { cardLabel, cardName, emptySlot, faceDown, faceUp, isRed, suitOf } from './cards.js';
import { fit } from './fit.js';
import { t } from './i18n.js';

const el = (tag, className, attrs = {}) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};

function revealedCard(card) {
  const c = faceUp(card);
  c.classList.add('revealed');
  return c;
}

const RANKS = 'A23456789TJQK';
const follows = (upper, lower) => RANKS.indexOf(upper[0]) === RANKS.indexOf(lower[0]) + 1;

/**
 * How many cards at the end of a column can be picked up: its run by the family's building rule (alternating
 * colours in the king-chain games unless sequence moves are off, one suit in Captives), else the free card
 * alone. Only these need a tap target; the cards above them are shown but never taken from there.
 */
export function movableRun(cards, family, options = {}) {
  const n = cards.length;
  if (!n || cards[n - 1] === '??') return 0;
  let fits = null;
  if (family === 'king-chain' && options.sequence_moves !== 'false') fits = (a, b) => isRed(a) !== isRed(b);
  if (family === 'captives') fits = (a, b) => suitOf(a) === suitOf(b);
  let k = 1;
  while (fits && k < n && cards[n - k - 1] !== '??' && follows(cards[n - k - 1], cards[n - k]) && fits(cards[n - k - 1], cards[n - k])) k += 1;
  return k;
}

/**
 * A pile: "fan" is "down" (a column), "right" (the waste) or "top" (only the top card shows). A column's cards
 * above its run (``run``: the cards that can be picked up) are fanned by --fan, the run by --run-fan, which the
 * fit keeps wide enough to tap.
 */
function pile(id, cards, { fan = 'top', label = '', name = '', badge = true, kind = '', run = 1 } = {}) {
  const node = el('div', `pile fan-${fan} ${kind}`.trim(), { 'data-pile': id });
  node.style.setProperty('--n', String(Math.max(cards.length, 1)));
  const covered = Math.max(cards.length - Math.max(run, 1), 0);
  if (fan === 'down') {
    node.dataset.run = String(run);
    node.style.setProperty('--a', String(covered));
    node.style.setProperty('--r', String(Math.max(cards.length - 1 - covered, 0)));
  }
  if (label) node.dataset.label = label;
  const spoken = name || id;
  if (!cards.length) {
    node.append(emptySlot(label));
    node.classList.add('empty');
    node.setAttribute('aria-label', t('pile.empty', { name: spoken }));
    return node;
  }
  let shown = cards.map((c, i) => [c, i]);
  if (fan === 'top') shown = shown.slice(-1);
  if (fan === 'right') shown = shown.slice(-3);
  shown.forEach(([card, pos], k) => {
    const c = card === '??' ? faceDown() : faceUp(card);
    c.dataset.pos = String(pos);
    c.style.setProperty('--i', String(fan === 'down' ? Math.min(pos, covered) : k));
    if (fan === 'down' && pos > covered) c.style.setProperty('--j', String(pos - covered));
    if (pos === cards.length - 1) c.classList.add('top');
    node.append(c);
  });
  if (fan === 'top' && badge && cards.length > 1) {
    const b = el('span', 'badge', { 'aria-hidden': 'true' });
    b.textContent = String(cards.length);
    node.append(b);
  }
  const top = cards[cards.length - 1];
  const topText = top === '??' ? '' : `, ${t('pile.top', { card: cardName(top) })}`;
  node.setAttribute('aria-label', `${t('pile.cards', { name: spoken, count: cards.length })}${topText}`);
  return node;
}

function stockPile(view, { action, revealed }) {
  const node = el('div', 'pile stock', { 'data-pile': 'stock' });
  const count = view.stockCount || 0;
  if (count > 0) {
    if (view.stockVisible && view.stock && view.stock.length) {
      // The gathered stock of a redeal is no secret (the player saw the columns): show the next card.
      node.append(faceUp(view.stock[0]));
    } else if (revealed && revealed.stock) {
      node.append(revealedCard(revealed.stock[0]));
    } else {
      node.append(faceDown());
    }
    const b = el('span', 'badge');
    b.textContent = String(count);
    node.append(b);
  } else {
    node.append(emptySlot((view.redealsLeft || 0) > 0 ? '↻' : ''));
    node.classList.add('empty');
  }
  const left = view.redealsLeft || 0;
  const doing = count > 0 ? action : left > 0 ? t('stock.redeal') : '';
  node.setAttribute('aria-label', [t('stock.label', { count }), doing].filter(Boolean).join('; '));
  return node;
}

/** The stock's group label says how many redeals are left: in the flow of the page, so it is never clipped. */
function stockLabel(view, label) {
  const left = view.redealsLeft || 0;
  return left > 0 ? `${label} · ${t('stock.redeals', { n: left })}` : label;
}

function group(className, children, label = '') {
  const node = el('div', `group ${className}`);
  if (label) {
    const h = el('span', 'group-label');
    h.textContent = label;
    node.append(h);
  }
  const inner = el('div', 'group-piles');
  inner.append(...children);
  node.append(inner);
  return node;
}

function columns(view, count, family, options) {
  const cols = [];
  for (let i = 0; i < count; i++) {
    const cards = (view.columns[i] && view.columns[i].cards) || [];
    const name = t('pile.column', { n: i + 1 });
    const run = movableRun(cards, family, options);
    cols.push(pile(String(i + 1), cards, { fan: 'down', label: String(i + 1), name, kind: 'column', run }));
  }
  const node = el('div', 'columns');
  node.style.setProperty('--cols', String(count));
  node.append(...cols);
  return node;
}

function foundations(view, labels = null) {
  return view.foundations.map((f, i) =>
    pile(`f${i + 1}`, f.cards || [], {
      label: labels ? labels[i] : '',
      name: t('pile.foundation', { n: i + 1 }),
      kind: 'foundation',
    }),
  );
}

// ------------------------------------------------------------------------------------------------ families

function kingChain(view, variant, revealed, options) {
  const cells = view.cells.map((c, i) => pile(`r${i + 1}`, c ? [c] : [], { kind: 'cell', name: t('pile.cell', { n: i + 1 }) }));
  const root = el('div', 'layout king-chain');
  root.append(
    group('reserve', cells, t('group.reserve')),
    group('foundations', foundations(view, view.foundations.map(() => 'A')), t('group.foundations')),
    columns(view, view.columns.length, 'king-chain', options),
  );
  return root;
}

function salicLaw(view, variant, revealed, options) {
  const root = el('div', 'layout salic-law');
  const names = (view.fixed || []).map(cardLabel).join(' ');
  const queens = el('div', 'queens', { role: 'img', 'aria-label': `${t('pile.queens')}: ${names}` });
  for (const q of view.fixed || []) {
    const c = faceUp(q);
    c.classList.add('fixed');
    queens.append(c);
  }
  const top = el('div', 'top-row');
  top.append(
    group('stock-group', [stockPile(view, { action: t('stock.deal'), revealed })], stockLabel(view, t('group.stock'))),
    group('foundations', foundations(view, view.foundations.map(() => 'A')), t('group.foundations-any')),
  );
  const side = el('div', 'salic-side');
  side.append(queens, top);
  root.append(side, columns(view, 8, 'salic-law', options));
  return root;
}

function captives(view, variant, revealed, options) {
  const root = el('div', 'layout captives');
  const slots = [];
  for (let i = 0; i < 8; i++) {
    const cards = (view.foundations[i] && view.foundations[i].cards) || [];
    const slot = el('div', 'king-slot');
    const done = cards.length >= 13;
    const name = t('pile.slot', { n: i + 1 });
    const pileNode = done
      ? pile(`f${i + 1}`, ['??'], { kind: 'foundation done', badge: false, label: 'K', name })
      : pile(`f${i + 1}`, cards, { kind: 'foundation', label: 'K', name });
    if (done) pileNode.setAttribute('aria-label', t('pile.slot-done', { n: i + 1 }));
    slot.append(pileNode);
    if (i < 7) {
      const captive = (view.captives || [])[i];
      const c = el('div', 'pile captive', { 'data-pile': `c${i + 1}` });
      const shown = captive === '??' && revealed && revealed.captives[i];
      if (shown) {
        c.append(revealedCard(shown));
        c.setAttribute('aria-label', t('pile.captive-up', { n: i + 1, card: cardLabel(shown) }));
      } else if (captive === '??') {
        c.append(faceDown());
        c.setAttribute('aria-label', t('pile.captive-down', { n: i + 1 }));
      } else if (captive) {
        const card = faceUp(captive);
        card.dataset.pos = '0';
        card.classList.add('top');
        c.append(card);
        c.classList.add('released');
        c.setAttribute('aria-label', t('pile.captive-up', { n: i + 1, card: cardLabel(captive) }));
      } else {
        c.classList.add('gone');
      }
      slot.append(c);
    }
    slots.push(slot);
  }
  const kingRow = group('king-row', slots, t('group.king-row'));
  kingRow.dataset.pile = 'k';
  const stockWaste = group(
    'stock-waste',
    [
      stockPile(view, { action: t('stock.turn'), revealed }),
      pile('w', view.waste || [], { fan: 'right', kind: 'waste', name: t('pile.waste') }),
    ],
    stockLabel(view, t('group.stock-waste')),
  );
  const top = el('div', 'top-row');
  top.append(kingRow, stockWaste);
  root.append(top, columns(view, 8, 'captives', options));
  return root;
}

function sultan(view, variant, revealed) {
  const root = el('div', 'layout sultan');
  const f = foundations(view);
  const sultanCard = faceUp((view.fixed || ['KH'])[0]);
  sultanCard.classList.add('fixed');
  const throne = el('div', 'pile sultan-card', { role: 'img', 'aria-label': `${t('pile.sultan')}: ${cardLabel(sultanCard.dataset.card)}` });
  throne.append(sultanCard);
  // The square: the AH above the sultan, the seven kings around them.
  const order = [f[0], f[7], f[1], f[2], throne, f[3], f[4], f[5], f[6]];
  const square = el('div', 'square');
  square.append(...order);
  const cells = view.cells.map((c, i) => pile(`r${i + 1}`, c ? [c] : [], { kind: 'cell', name: t('pile.side', { n: i + 1 }) }));
  const half = Math.ceil(cells.length / 2);
  const left = el('div', 'side left');
  left.append(...cells.slice(0, half));
  const right = el('div', 'side right');
  right.append(...cells.slice(half));
  const court = el('div', 'court');
  court.append(left, square, right);
  const stockWaste = group(
    'stock-waste',
    [
      stockPile(view, { action: t('stock.turn'), revealed }),
      pile('w', view.waste || [], { fan: 'right', kind: 'waste', name: t('pile.waste') }),
    ],
    stockLabel(view, t('group.stock-waste')),
  );
  root.append(court, stockWaste);
  return root;
}

const FAMILIES = { 'king-chain': kingChain, 'salic-law': salicLaw, captives, sultan };

/**
 * Draw ``view`` into ``table`` (``revealed``: the hidden cards, once the game is over; ``options``: the game's
 * options, which say whether runs move) and fit it to the screen.
 */
export function drawTable(table, variant, view, revealed = null, options = {}) {
  const draw = FAMILIES[variant.family] || kingChain;
  table.replaceChildren(draw(view, variant, revealed, options || {}));
  table.dataset.family = variant.family;
  table.dataset.variant = variant.id;
  fit(table);
}
