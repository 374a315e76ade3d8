// Each family's table as players know it, drawn from the player's view (never more: hidden cards are
// only ever counts). Every pile carries data-pile in the move notation ("3", "r2", "f5", "w", "c3"),
// plus data-pile="stock" for the stock, so that a click maps straight to a move.

import { emptySlot, faceDown, faceUp } from './cards.js';

const el = (tag, className, attrs = {}) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};

/** A pile: "fan" is "down" (a column), "right" (the waste) or "top" (only the top card shows). */
function pile(id, cards, { fan = 'top', label = '', badge = true, kind = '' } = {}) {
  const node = el('div', `pile fan-${fan} ${kind}`.trim(), { 'data-pile': id });
  node.style.setProperty('--n', String(Math.max(cards.length, 1)));
  if (label) node.dataset.label = label;
  if (!cards.length) {
    node.append(emptySlot(label));
    node.classList.add('empty');
    return node;
  }
  let shown = cards.map((c, i) => [c, i]);
  if (fan === 'top') shown = shown.slice(-1);
  if (fan === 'right') shown = shown.slice(-3);
  shown.forEach(([card, pos], k) => {
    const c = card === '??' ? faceDown() : faceUp(card);
    c.dataset.pos = String(pos);
    c.style.setProperty('--i', String(fan === 'down' ? pos : k));
    if (pos === cards.length - 1) c.classList.add('top');
    node.append(c);
  });
  if (fan === 'top' && badge && cards.length > 1) node.append(el('span', 'badge', { 'aria-hidden': 'true' }));
  if (fan === 'top' && badge && cards.length > 1) node.lastChild.textContent = String(cards.length);
  node.setAttribute('aria-label', `${label || id}: ${cards.length} card${cards.length === 1 ? '' : 's'}`);
  return node;
}

function stockPile(view, { action }) {
  const node = el('div', 'pile stock', { 'data-pile': 'stock', role: 'button', tabindex: '0' });
  const count = view.stockCount || 0;
  if (count > 0) {
    if (view.stockVisible && view.stock && view.stock.length) {
      // The gathered stock of a redeal is no secret (the player saw the columns): show the next card.
      const next = faceUp(view.stock[0]);
      node.append(next);
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
  node.setAttribute('aria-label', `stock: ${count} cards; ${action}`);
  const info = el('span', 'pile-note');
  info.textContent = (view.redealsLeft || 0) > 0 ? `${view.redealsLeft} redeal${view.redealsLeft === 1 ? '' : 's'} left` : '';
  node.append(info);
  return node;
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

function columns(view, count) {
  const cols = [];
  for (let i = 0; i < count; i++) {
    const cards = (view.columns[i] && view.columns[i].cards) || [];
    cols.push(pile(String(i + 1), cards, { fan: 'down', label: String(i + 1), kind: 'column' }));
  }
  const node = el('div', 'columns');
  node.style.setProperty('--cols', String(count));
  node.append(...cols);
  return node;
}

function foundations(view, labels = null) {
  return view.foundations.map((f, i) =>
    pile(`f${i + 1}`, f.cards || [], { label: labels ? labels[i] : '', kind: 'foundation' }),
  );
}

// ------------------------------------------------------------------------------------------------ families

function kingChain(view) {
  const cells = view.cells.map((c, i) => pile(`r${i + 1}`, c ? [c] : [], { kind: 'cell' }));
  const ncols = view.columns.length;
  const root = el('div', 'layout king-chain');
  root.style.setProperty('--cols', String(ncols));
  root.append(
    group('reserve', cells, 'Reserve'),
    group('foundations', foundations(view, view.foundations.map(() => 'A')), 'Foundations'),
    columns(view, ncols),
  );
  return { root, across: ncols, side: 4 };
}

function salicLaw(view, variant) {
  const root = el('div', 'layout salic-law');
  const queens = el('div', 'queens', { 'aria-label': 'the queens (they never move)' });
  for (const q of view.fixed || []) {
    const c = faceUp(q);
    c.classList.add('fixed');
    queens.append(c);
  }
  const action = variant.id === 'picture-gallery' ? 'deal a card, or redeal when empty' : 'deal a card';
  const top = el('div', 'top-row');
  top.append(
    group('stock-group', [stockPile(view, { action })], 'Stock'),
    group('foundations', foundations(view, view.foundations.map(() => 'A')), 'Foundations (A to J, any suit)'),
  );
  const side = el('div', 'salic-side');
  side.append(queens, top);
  root.append(side, columns(view, 8));
  return { root, across: 9, side: 0 };
}

function captives(view) {
  const root = el('div', 'layout captives');
  const slots = [];
  for (let i = 0; i < 8; i++) {
    const cards = (view.foundations[i] && view.foundations[i].cards) || [];
    const slot = el('div', 'king-slot');
    const done = cards.length >= 13;
    const pileNode = done
      ? pile(`f${i + 1}`, ['??'], { kind: 'foundation done', badge: false, label: 'K' })
      : pile(`f${i + 1}`, cards, { kind: 'foundation', label: 'K' });
    if (done) pileNode.setAttribute('aria-label', `slot ${i + 1}: complete, turned over`);
    slot.append(pileNode);
    if (i < 7) {
      const captive = (view.captives || [])[i];
      const c = el('div', 'pile captive', { 'data-pile': `c${i + 1}` });
      if (captive === '??') {
        c.append(faceDown());
        c.setAttribute('aria-label', `captive ${i + 1}: face down`);
      } else if (captive) {
        const card = faceUp(captive);
        card.dataset.pos = '0';
        card.classList.add('top');
        c.append(card);
        c.classList.add('released');
        c.setAttribute('aria-label', `captive ${i + 1}: released`);
      } else {
        c.classList.add('gone');
      }
      slot.append(c);
    }
    slots.push(slot);
  }
  const kingRow = group('king-row', slots, 'King row');
  kingRow.dataset.pile = 'k';
  const stockWaste = group(
    'stock-waste',
    [stockPile(view, { action: 'turn a card' }), pile('w', view.waste || [], { fan: 'right', kind: 'waste', label: '' })],
    'Stock and waste',
  );
  const top = el('div', 'top-row');
  top.append(kingRow, stockWaste);
  root.append(top, columns(view, 8));
  return { root, across: 8, side: 3 };
}

function sultan(view) {
  const root = el('div', 'layout sultan');
  const f = foundations(view);
  const sultanCard = faceUp((view.fixed || ['KH'])[0]);
  sultanCard.classList.add('fixed');
  const throne = el('div', 'pile sultan-card', { 'aria-label': 'the sultan' });
  throne.append(sultanCard);
  // The square: the AH above the sultan, the seven kings around them.
  const order = [f[0], f[7], f[1], f[2], throne, f[3], f[4], f[5], f[6]];
  const square = el('div', 'square');
  square.append(...order);
  const cells = view.cells.map((c, i) => pile(`r${i + 1}`, c ? [c] : [], { kind: 'cell' }));
  const half = Math.ceil(cells.length / 2);
  const left = el('div', 'side left');
  left.append(...cells.slice(0, half));
  const right = el('div', 'side right');
  right.append(...cells.slice(half));
  const court = el('div', 'court');
  court.style.setProperty('--side', String(half));
  court.append(left, square, right);
  const stockWaste = group(
    'stock-waste',
    [stockPile(view, { action: 'turn a card' }), pile('w', view.waste || [], { fan: 'right', kind: 'waste' })],
    'Stock and waste',
  );
  root.append(court, stockWaste);
  return { root, across: 5, side: 3, rows: Math.max(3, half) };
}

const FAMILIES = { 'king-chain': kingChain, 'salic-law': salicLaw, captives, sultan };

/** Draw ``view`` into ``table``; returns the layout's sizing hints. */
export function drawTable(table, variant, view) {
  const draw = FAMILIES[variant.family] || kingChain;
  const layout = draw(view, variant);
  table.replaceChildren(layout.root);
  table.dataset.family = variant.family;
  table.dataset.variant = variant.id;
  fit(table, layout);
  return layout;
}

/** Card size from the room there is; column fans squeezed so that long columns still fit on screen. */
export function fit(table, layout) {
  const width = table.clientWidth || window.innerWidth;
  const wide = width >= 900;
  table.classList.toggle('wide', wide);
  table.classList.toggle('narrow', !wide);
  const family = table.dataset.family;
  let units = layout.across + (wide ? layout.side : 0);
  if (family === 'salic-law') units = wide ? 12 : 9;
  if (family === 'captives') units = wide ? 11 : 8;
  if (family === 'sultan') units = wide ? 8 : 5;
  const gap = wide ? 12 : 4;
  let cw = Math.floor((width - gap * (units + 1)) / (units + (wide ? 0.5 : 0.1)));
  const rows = layout.rows || 3;
  // Salic Law's columns grow long (every card of the stock lands on the newest one): smaller cards there.
  const caps = { sultan: wide ? Math.floor((window.innerHeight - 150) / (rows * 1.4 + 0.5)) : 90, 'salic-law': 78 };
  const cap = caps[family] ?? 96;
  cw = Math.max(28, Math.min(cw, cap));
  table.style.setProperty('--cw', `${cw}px`);
  table.style.setProperty('--cw-small', `${Math.round(cw * 0.55)}px`);
  table.style.setProperty('--gap', `${gap}px`);
  fitColumns(table);
}

export function fitColumns(table) {
  const cw = parseFloat(table.style.getPropertyValue('--cw')) || 70;
  const ch = cw * 1.4;
  const bottom = Math.max(window.innerHeight - 30, 480); // the table's bottom padding stays on screen
  const columns = [...table.querySelectorAll('.pile.fan-down')];
  // Read every position first, then write: one layout instead of one per column.
  const tops = columns.map((col) => col.getBoundingClientRect().top + window.scrollY);
  columns.forEach((col, i) => {
    const n = col.querySelectorAll('.card').length;
    const room = bottom - tops[i];
    let fan = ch * 0.27;
    if (n > 1) fan = Math.min(fan, (room - ch) / (n - 1));
    fan = Math.max(fan, cw * 0.19);
    col.style.setProperty('--fan', `${fan.toFixed(1)}px`);
  });
}
