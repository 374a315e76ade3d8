// Fitting a drawn table to the window: the largest card width at which every pile is on screen, the column
// fans compressed first (down to where a card's corner still reads; a run's strips stay 24 px tap targets),
// the cards made smaller only then. Every place on the table is an affine function of the card width, so two
// measured layouts (the model, kept in the browser per table shape) give the whole geometry at any width.
// A column too long for the room even at the smallest cards (a Royal Retinue column of 65 cards on a phone held
// sideways) continues in a second lane beside itself, never with strips too thin for its corners to read.

const MAX_CW = { 'king-chain': 96, 'salic-law': 84, captives: 96, sultan: 96 };
const MIN_CW = 24;
/** The corner's letters: their size in style.css (``.corner``), never under 10 px. */
const cornerFont = (cw) => Math.max(10, cw * 0.22);
/**
 * The fan below which a card's corner (rank and suit) would be cut: fans stop there and the cards shrink. The
 * whole corner shows (its offset, its letters, a pixel to spare): a Q never reads "O" nor a J "I".
 */
export const fanFloor = (cw) => Math.max(cw * 0.3, cw * 0.03 + cornerFont(cw) + 2.5);
/** The space between the lanes of one long column, narrower than the gap between columns. */
const LANE_GAP = 3;
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

/** Lay ``col``'s cards out in one lane (CSS fans) or in several, each card placed in px. */
function setLanes(col, cw, positions) {
  const cards = col.querySelectorAll('.card');
  if (!positions) {
    delete col.dataset.lanes;
    col.style.removeProperty('--lanes');
    col.style.removeProperty('--lanes-h');
    for (const c of cards) {
      c.style.removeProperty('top');
      c.style.removeProperty('left');
      c.classList.toggle('covered', !c.classList.contains('top'));
    }
    return;
  }
  const lanes = positions[positions.length - 1][0] + 1;
  const height = Math.max(...positions.map(([, y]) => y)) + cw * 1.4;
  col.dataset.lanes = String(lanes);
  col.style.setProperty('--lanes', String(lanes));
  col.style.setProperty('--lanes-h', `${height.toFixed(2)}px`);
  cards.forEach((c, i) => {
    const [lane, y] = positions[i];
    c.style.top = `${y.toFixed(2)}px`;
    c.style.left = `${(lane * (cw + LANE_GAP)).toFixed(2)}px`;
    const next = positions[i + 1];
    c.classList.toggle('covered', Boolean(next) && next[0] === lane);
  });
}

/**
 * Fans for card width ``cw``: each column as open as the room below it allows. The cards above the run close up
 * first, down to the floor where their corners still read; the run's strips stay tap targets (``runFloor``).
 * With ``lanes``, a column that would still run past the bottom continues in a lane beside itself.
 */
function setFans(table, cw, bottom, lanes = false) {
  const ch = cw * 1.4;
  const columns = [...table.querySelectorAll('.pile.fan-down')];
  for (const col of columns) setLanes(col, cw, null);
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
    fan = Math.max(fan, floor);
    col.style.setProperty('--fan', `${fan.toFixed(2)}px`);
    col.style.setProperty('--run-fan', `${runFan.toFixed(2)}px`);
    if (!lanes || a * fan + r * runFan <= room + 0.5) return;
    // Lanes: each card below the one before at its strip, a new lane where the next would pass the bottom.
    const positions = [];
    let lane = 0;
    let y = 0;
    for (let k = 0; k < a + r + 1; k++) {
      if (k > 0) {
        y += k - 1 < a ? floor : runFloor(cw);
        if (y > room + 0.5) {
          lane += 1;
          y = 0;
        }
      }
      positions.push([lane, y]);
    }
    setLanes(col, cw, positions);
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

/** Whether the player chose bigger cards (More → Bigger cards): then the page may scroll down, never sideways. */
export const bigCards = () => document.body.dataset.cards === 'large';

/** Lay the table out at card width ``cw`` and say whether it fits. */
function tryWidth(table, cw, width, bottom, lanes) {
  apply(table, cw);
  setFans(table, cw, bottom, lanes);
  return fits(table, width, bottom);
}

/** The card width the lanes last fitted at, per window: a move then costs two layouts, not seven. */
const laneWidths = new Map();

/** The widest cards at which the table fits with long columns in lanes, found by halves (or kept from before). */
function laneWidth(table, width, bottom) {
  const key = `${table.dataset.variant}|${width}x${bottom}`;
  const last = laneWidths.get(key);
  let lo = MIN_CW;
  let hi = MAX_CW[table.dataset.family] || 96;
  if (last && tryWidth(table, last, width, bottom, true)) {
    lo = last;
    if (last + 1 >= hi || !tryWidth(table, last + 1, width, bottom, true)) hi = last + 1;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (tryWidth(table, mid, width, bottom, true)) lo = mid;
    else hi = mid;
  }
  tryWidth(table, lo, width, bottom, true);
  if (laneWidths.size > 20) laneWidths.clear();
  laneWidths.set(key, lo);
  return lo;
}

/**
 * The largest card width at which the whole table fits the window: fans compress first (down to the floor
 * where a card's corner still reads), then the cards shrink. The width is found on the model, then laid out and
 * checked, and stepped down in the rare case the model was off (a row that wraps). A column that fits at no
 * width takes a second lane: the widest cards at which the lanes fit are then searched for, by halves.
 */
export function fit(table) {
  const { width } = room();
  const wide = width >= 900 || width > document.documentElement.clientHeight;
  table.classList.toggle('wide', wide);
  table.classList.toggle('narrow', !wide);
  table.classList.toggle('short', document.documentElement.clientHeight < 500);
  table.style.setProperty('--gap', `${wide && width >= 900 ? 12 : 4}px`);
  // Bigger cards: as wide as the window allows, the columns as long as they are (the page scrolls down).
  const bottom = bigCards() ? 1e6 : room().bottom;
  const kept = model(table, width, bottom);
  let cw = widest(kept, width, bottom);
  // The model says no width holds every column in one lane: the lanes, at once (no measuring again).
  let needLanes = cw <= MIN_CW && !tryWidth(table, cw, width, bottom, false);
  if (!needLanes && !tryWidth(table, cw, width, bottom, false)) {
    // A model kept from another visit may be off (the styles or fonts changed): measure again, once.
    cw = Math.min(cw, widest(model(table, width, bottom, true), width, bottom));
    while (!tryWidth(table, cw, width, bottom, false) && cw > MIN_CW) cw -= 1;
    needLanes = cw <= MIN_CW && !fits(table, width, bottom);
  }
  if (needLanes) cw = laneWidth(table, width, bottom);
  table.dataset.cw = table.style.getPropertyValue('--cw');
}
