// Each family's table as players know it, drawn from the player's view (never more: hidden cards are
// only ever counts). Every pile carries data-pile in the move notation ("3", "r2", "f5", "w", "c3"),
// plus data-pile="stock" for the stock, so that a click maps straight to a move. Once a game is over the
// revealed cards (reveal.js) are drawn face up, marked as revealed.

import { cardLabel, cardName, emptySlot, faceDown, faceUp, isRed, suitOf } from './cards.js';
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

// ------------------------------------------------------------------------------------------------ fitting

const MAX_CW = { 'king-chain': 96, 'salic-law': 84, captives: 96, sultan: 96 };
const MIN_CW = 24;
/** The fan below which a card's corner (rank and suit) would be cut: fans stop there and the cards shrink. */
const fanFloor = (cw) => Math.max(cw * 0.3, 9);
const fanDefault = (cw) => cw * 0.38;
/** A tap target's least height (issue: at least 24 px for every card that can be picked up). */
const TAP = 24;
/** The strip of a card in a column's run: a tap target, and never less than the corner's floor. */
const runFloor = (cw) => Math.max(fanFloor(cw), TAP);

/** A column's strips: ``a`` above its run (only shown), ``r`` inside its run (tapped), from its data. */
function strips(col) {
  const n = col.querySelectorAll('.card').length;
  const run = Math.min(Number(col.dataset.run || 1), n);
  return { a: Math.max(n - Math.max(run, 1), 0), r: Math.max(run - 1, 0) };
}

/**
 * The room the table has: the layout viewport (a phone zoomed out would report a taller window), less a margin.
 */
function room() {
  const doc = document.documentElement;
  return { width: doc.clientWidth, bottom: doc.clientHeight - 6 };
}

/**
 * Fans for card width ``cw``: each column as open as the room below it allows. The cards above the run close up
 * first, down to the floor where their corners still read; the run's strips stay tap targets (``runFloor``).
 */
function setFans(table, cw, bottom) {
  const ch = cw * 1.4;
  const columns = [...table.querySelectorAll('.pile.fan-down')];
  const tops = columns.map((col) => col.getBoundingClientRect().top + window.scrollY);
  columns.forEach((col, i) => {
    const { a, r } = strips(col);
    const room = bottom - tops[i] - ch;
    const floor = fanFloor(cw);
    let fan = fanDefault(cw);
    let runFan = Math.max(fan, runFloor(cw));
    if (a * fan + r * runFan > room) {
      if (a) fan = Math.max(floor, Math.min(fan, (room - r * runFan) / a));
      if (r) runFan = Math.max(runFloor(cw), Math.min(runFan, (room - a * fan) / r));
    }
    col.style.setProperty('--fan', `${Math.max(fan, floor).toFixed(2)}px`);
    col.style.setProperty('--run-fan', `${runFan.toFixed(2)}px`);
  });
}

function apply(table, cw) {
  table.style.setProperty('--cw', `${cw}px`);
  table.style.setProperty('--cw-small', `${Math.round(cw * 0.55)}px`);
}

/** Whether every pile lies inside the window (nothing cut off at either side, nothing below the bottom). */
function fits(table, width, bottom) {
  for (const p of table.querySelectorAll('.pile, .group-label, .queens')) {
    const r = p.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -0.5 || r.right > width + 0.5 || r.bottom + window.scrollY > bottom + 0.5) return false;
  }
  return true;
}

const PLACES = '.pile, .group-label, .queens';

/** Where every pile lies at card width ``cw`` (fans at their floor), in page coordinates. */
function measure(table, cw) {
  apply(table, cw);
  for (const col of table.querySelectorAll('.pile.fan-down')) {
    col.style.setProperty('--fan', `${fanFloor(cw).toFixed(2)}px`);
    col.style.setProperty('--run-fan', `${runFloor(cw).toFixed(2)}px`);
  }
  return [...table.querySelectorAll(PLACES)].map((node) => {
    const r = node.getBoundingClientRect();
    return {
      left: r.left,
      right: r.right,
      top: r.top + window.scrollY,
      bottom: r.bottom + window.scrollY,
      empty: r.width === 0 && r.height === 0,
    };
  });
}

/**
 * Every place on the table is an affine function of the card width (gaps are fixed, the rest scales), so two
 * layouts give each pile's edges at any width. The model holds while the table keeps its shape (the same piles,
 * labels and window), so a move costs one layout, not three.
 */
const models = new Map();
const SAVED_MODELS = 'patience.fit';
let styleHash = null;

/** A short hash of the page's style sheets: a kept model is only trusted under the styles that made it. */
function stylesVersion() {
  if (styleHash === null) {
    let h = 0;
    for (const sheet of document.styleSheets) {
      for (const rule of sheet.cssRules) for (const ch of rule.cssText) h = (h * 31 + ch.charCodeAt(0)) | 0;
    }
    styleHash = String(h >>> 0);
  }
  return styleHash;
}

/** Models kept in the browser between visits (a reopened game is fitted with one layout). */
function savedModels() {
  try {
    const saved = JSON.parse(localStorage.getItem(SAVED_MODELS) || '{}');
    return saved && saved.version === stylesVersion() ? saved.models : {};
  } catch (err) {
    return {};
  }
}

function keepModel(key, m) {
  const kept = savedModels();
  kept[key] = m;
  const keys = Object.keys(kept);
  for (const old of keys.slice(0, Math.max(0, keys.length - 24))) delete kept[old];
  try {
    localStorage.setItem(SAVED_MODELS, JSON.stringify({ version: stylesVersion(), models: kept }));
  } catch (err) {
    // No room: the model is made again next time.
  }
}

const MARKS = / (selected|target|hint|dragging)\b/g;

function model(table, width, bottom, fresh = false) {
  const nodes = [...table.querySelectorAll(PLACES)];
  const shape = nodes.map((n) => `${n.className.replace(MARKS, '')}:${n.dataset.pile || n.textContent}`).join(',');
  // Places are measured in the window, so the table's own top (below the bar and the message) is part of the key.
  const top = Math.round(table.getBoundingClientRect().top + window.scrollY);
  const key = `${table.className}|${table.dataset.family}|${width}x${bottom}@${top}|${shape}`;
  let m = fresh ? null : models.get(key) || savedModels()[key];
  if (!m || m.A.length !== nodes.length) {
    const hi = MAX_CW[table.dataset.family] || 96;
    const lo = Math.round(hi / 2);
    m = { hi, lo, A: measure(table, hi), B: measure(table, lo) };
    keepModel(key, m);
  }
  if (models.size > 40) models.clear();
  models.set(key, m);
  const counts = nodes.map((n) => (n.classList.contains('fan-down') ? strips(n) : null));
  return { m, counts };
}

/** The largest card width at which the model says everything fits. */
function widest({ m, counts }, width, bottom) {
  const { hi, lo, A, B } = m;
  const at = (a, b, cw) => b + ((a - b) * (cw - lo)) / (hi - lo);
  const ok = (cw) =>
    A.every((p, i) => {
      const q = B[i];
      if (p.empty && q.empty) return true;
      if (at(p.left, q.left, cw) < -0.5 || at(p.right, q.right, cw) > width + 0.5) return false;
      if (!counts[i]) return at(p.bottom, q.bottom, cw) <= bottom + 0.5;
      const top = at(p.top, q.top, cw);
      return top + cw * 1.4 + counts[i].a * fanFloor(cw) + counts[i].r * runFloor(cw) <= bottom + 0.5;
    });
  let cw = hi;
  while (cw > MIN_CW && !ok(cw)) cw -= 1;
  return cw;
}

/**
 * The largest card width at which the whole table fits the window: fans compress first (down to the floor
 * where a card's corner still reads), then the cards shrink. The width is found on the model, then laid out and
 * checked, and stepped down in the rare case the model was off (a row that wraps).
 */
export function fit(table) {
  const { width } = room();
  const wide = width >= 900;
  table.classList.toggle('wide', wide);
  table.classList.toggle('narrow', !wide);
  table.style.setProperty('--gap', `${wide ? 12 : 4}px`);
  const { bottom } = room();
  let cw = widest(model(table, width, bottom), width, bottom);
  apply(table, cw);
  setFans(table, cw, bottom);
  if (!fits(table, width, bottom)) {
    // A model kept from another visit may be off (the styles or fonts changed): measure again, once.
    cw = Math.min(cw, widest(model(table, width, bottom, true), width, bottom));
    for (;;) {
      apply(table, cw);
      setFans(table, cw, bottom);
      if (cw <= MIN_CW || fits(table, width, bottom)) break;
      cw -= 1;
    }
  }
  table.dataset.cw = table.style.getPropertyValue('--cw');
}
