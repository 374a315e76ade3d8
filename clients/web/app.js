// The web client's controller: deal, select a card (click or drag), highlight its legal destinations from
// LegalMoves, play, undo, explain refusals, and on a win check the certificate in the browser.
// The page only ever holds what the API sends a player: the view (hidden cards as counts), the legal moves,
// and the seed once the game is over.

import { api, ApiError } from './api.js';
import { cardLabel } from './cards.js';
import { checkCommitment, checkMix, fromBase64, verifyCertificate } from './certificate.js';
import { checkDeal } from './deal.js';
import { explain } from './messages.js';
import { drawTable, fit } from './table.js';

const $ = (id) => document.getElementById(id);
const SAVED_GAME = 'patience.game';
const SAVED_VARIANT = 'patience.variant';
const FIRST_VIEW = 'patience.first'; // the layout shown at the deal, to re-check it once the seed is revealed

const PREFIX = {
  PILE_KIND_COLUMN: '',
  PILE_KIND_RESERVE: 'r',
  PILE_KIND_FOUNDATION: 'f',
  PILE_KIND_WASTE: 'w',
  PILE_KIND_CAPTIVE: 'c',
  PILE_KIND_KING_ROW: 'k',
};
const STATUS_TEXT = {
  GAME_STATUS_WON: 'Won',
  GAME_STATUS_STUCK: 'No moves left',
  GAME_STATUS_RESIGNED: 'Resigned',
  GAME_STATUS_EXPIRED: 'Expired',
};
const OVER = new Set(['GAME_STATUS_WON', 'GAME_STATUS_RESIGNED', 'GAME_STATUS_EXPIRED']);

const state = {
  variants: [],
  byId: new Map(),
  game: null,
  token: null,
  legal: [],
  selection: null, // { pile, pos, count }
  batch: [], // columns whose free cards go to the reserve together ("3,5,5-r"), king-chain games only
  layout: null,
  busy: false,
};

// ------------------------------------------------------------------------------------------------ helpers

function pileId(ref) {
  if (!ref) return '';
  const prefix = PREFIX[ref.kind] ?? '?';
  if (prefix === 'w' || prefix === 'k') return prefix;
  return `${prefix}${ref.index ?? ''}`;
}

function parseLegal(entry) {
  const m = entry.move || {};
  return {
    text: entry.text,
    kind: m.kind,
    sources: (m.sources || []).map(pileId),
    target: pileId(m.target),
    count: m.count,
  };
}

function say(text, kind = 'info') {
  const box = $('message');
  box.textContent = text;
  box.className = `message ${text ? kind : ''}`.trim();
}

function variant() {
  return state.game ? state.byId.get(state.game.variant) : null;
}

function view() {
  return state.game.view;
}

function pileCards(id) {
  const v = view();
  if (/^\d+$/.test(id)) return (v.columns[Number(id) - 1] || {}).cards || [];
  if (id[0] === 'r') return v.cells[Number(id.slice(1)) - 1] ? [v.cells[Number(id.slice(1)) - 1]] : [];
  if (id[0] === 'f') return (v.foundations[Number(id.slice(1)) - 1] || {}).cards || [];
  if (id === 'w') return v.waste || [];
  if (id[0] === 'c') {
    const c = (v.captives || [])[Number(id.slice(1)) - 1];
    return c && c !== '??' ? [c] : [];
  }
  return [];
}

const isOver = () => !state.game || OVER.has(state.game.status);

function save() {
  if (state.game && state.token) {
    localStorage.setItem(SAVED_GAME, JSON.stringify({ id: state.game.gameId, token: state.token }));
  }
}

// ------------------------------------------------------------------------------------------------ drawing

function render() {
  const table = $('table');
  const v = variant();
  if (!state.game || !v) {
    table.replaceChildren();
    return;
  }
  state.layout = drawTable(table, v, view());
  table.classList.toggle('over', isOver());
  for (const p of table.querySelectorAll('.pile[data-pile]')) {
    if (p.dataset.pile !== 'k') {
      p.tabIndex = 0;
      p.setAttribute('role', 'button');
    }
  }
  const g = state.game;
  $('game-title').textContent = `${v.nameEn} · ${v.nameRu}`;
  $('moves').textContent = String(g.moveCount || 0);
  $('undos').textContent = String(g.undoCount || 0);
  const status = $('status');
  status.textContent = STATUS_TEXT[g.status] || '';
  status.className = `status ${g.status === 'GAME_STATUS_WON' ? 'won' : g.status === 'GAME_STATUS_STUCK' ? 'stuck' : ''}`;
  $('btn-undo').disabled = isOver() || !g.allowUndo || !(g.moveCount > 0);
  $('btn-resign').disabled = isOver();
  $('btn-hint').disabled = isOver() || state.legal.length === 0;
  document.body.dataset.version = String(g.version);
  document.body.dataset.status = g.status;
  showSelection();
}

function clearMarks() {
  const table = $('table');
  for (const n of table.querySelectorAll('.selected, .target, .hint')) n.classList.remove('selected', 'target', 'hint');
}

function showSelection() {
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
  for (const id of targetsOf(sel)) {
    const t = table.querySelector(`.pile[data-pile="${id}"]`);
    if (t) t.classList.add('target');
  }
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

/** Shift-click (or Ctrl-click) on a column: its next free card joins the batch bound for the reserve. */
function addToBatch(column) {
  if (!state.batch.length && state.selection && /^\d+$/.test(state.selection.pile) && state.selection.count === 1) {
    state.batch.push(state.selection.pile);
  }
  state.selection = null;
  const taken = state.batch.filter((c) => c === column).length;
  if (state.batch.length < 8 && taken < pileCards(column).length) state.batch.push(column);
  showSelection();
  say(`${state.batch.length} card${state.batch.length === 1 ? '' : 's'} for the reserve (${state.batch.join(',')}-r): click an empty cell.`);
}

// ------------------------------------------------------------------------------------------------ moves

function movesFrom(sel) {
  return state.legal.filter((m) => m.sources.length === 1 && m.sources[0] === sel.pile);
}

function countFits(m, sel) {
  if (/^\d+$/.test(sel.pile)) return (m.count ?? 1) === sel.count || (sel.count === 1 && /^\d+$/.test(m.target));
  return true;
}

/** Where the selection may go: the targets of its legal moves (every empty cell when one empty cell is). */
function targetsOf(sel) {
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
function moveText(sel, target) {
  const family = variant().family;
  let wanted = target;
  if (family === 'captives' && target[0] === 'f' && !pileCards(target).length) wanted = 'k';
  const emptyCell = target[0] === 'r' && !pileCards(target).length;
  const candidates = movesFrom(sel).filter(
    (m) => m.target === wanted || (emptyCell && m.target[0] === 'r' && !pileCards(m.target).length),
  );
  const exact = candidates.filter((m) => (m.count ?? 1) === sel.count || !/^\d+$/.test(sel.pile));
  const chosen = exact.length ? exact[0] : candidates.length === 1 ? candidates[0] : null;
  if (chosen) return chosen.target === wanted ? chosen.text : chosen.text.replace(/-r\d+/, `-${target}`);
  const run = /^\d+$/.test(sel.pile) && /^\d+$/.test(wanted) ? `/${sel.count}` : '';
  return `${sel.pile}-${wanted}${run}`;
}

function select(pile, pos) {
  const cards = pileCards(pile);
  if (!cards.length || pos < 0 || pos >= cards.length) return;
  state.selection = { pile, pos, count: cards.length - pos };
  showSelection();
  const card = cards[pos];
  const n = targetsOf(state.selection).size;
  say(n ? `${cardLabel(card)}${state.selection.count > 1 ? ` and ${state.selection.count - 1} more` : ''}: pick where it goes.` : '');
}

function deselect() {
  state.selection = null;
  state.batch = [];
  showSelection();
}

async function play(text) {
  if (state.busy || isOver()) return;
  state.busy = true;
  state.selection = null;
  state.batch = [];
  try {
    const response = await api.applyMove(state.game.gameId, state.token, state.game.version, text);
    state.game = response.game;
    state.legal = [];
    render();
    say('');
    await afterChange();
  } catch (err) {
    await refused(err, text);
  } finally {
    state.busy = false;
  }
}

async function refused(err, text = '') {
  if (!(err instanceof ApiError)) throw err;
  if (err.reason === 'STALE_VERSION') {
    await reload();
    say(explain(err), 'refused');
    return;
  }
  document.body.dataset.lastReason = err.reason;
  document.body.dataset.refusals = String(Number(document.body.dataset.refusals || 0) + 1);
  say(`${text ? `“${text}”: ` : ''}${explain(err)}`, 'refused');
  showSelection();
  settled();
}

/** After every change: save, fetch the legal moves (or show the result), then mark the page settled. */
async function afterChange() {
  save();
  if (state.game.status === 'GAME_STATUS_WON') {
    say('You won! Every card is home.', 'win');
    await showResult();
  } else if (isOver()) {
    await showResult();
  } else {
    await refreshLegal();
    if (state.game.status === 'GAME_STATUS_STUCK') say('No legal move is left. Undo, or resign to see the deal.', 'info');
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
  render();
}

async function reload() {
  const response = await api.getGame(state.game.gameId, state.token);
  state.game = response.game;
  state.selection = null;
  render();
  await afterChange();
}

function stockAction() {
  if (isOver()) return;
  const texts = new Set(state.legal.map((m) => m.text));
  for (const t of ['d', 's', 'rd']) if (texts.has(t)) return play(t);
  const v = view();
  const family = variant().family;
  if ((v.stockCount || 0) === 0) return play('rd');
  return play(family === 'salic-law' ? 'd' : 's');
}

function sendHome(sel) {
  const home = movesFrom(sel).find((m) => m.target[0] === 'f' && m.sources[0] !== m.target && (m.count ?? 1) === 1);
  if (home && sel.count === 1) {
    play(home.text);
    return true;
  }
  return false;
}

/** A click (or tap, or Enter) on something on the table. */
function activate(node, multi = false) {
  if (isOver() || state.busy) return;
  const pileEl = node.closest('[data-pile]');
  if (!pileEl) {
    deselect();
    return;
  }
  const id = pileEl.dataset.pile;
  if (multi && variant().family === 'king-chain' && /^\d+$/.test(id)) {
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
      const pos = cardEl && /^\d+$/.test(id) ? Number(cardEl.dataset.pos) : sel.pos;
      if (pos === sel.pos || pos < 0) {
        if (!sendHome(sel)) deselect();
      } else {
        select(id, pos);
      }
      return;
    }
    play(moveText(sel, id));
    return;
  }
  // Only a column lends a run; elsewhere (waste, cells, foundations, captives) the top card is the one that moves.
  if (cardEl && /^\d+$/.test(id)) select(id, Number(cardEl.dataset.pos));
  else if (cards.length) select(id, cards.length - 1);
}

// ------------------------------------------------------------------------------------------------ dragging

let press = null;

function onPointerDown(e) {
  if (e.button !== 0 || isOver()) return;
  const card = e.target.closest('.card[data-card]');
  const pileEl = e.target.closest('[data-pile]');
  const multi = e.shiftKey || e.ctrlKey || e.metaKey;
  press = { x: e.clientX, y: e.clientY, node: e.target, card, pileEl, drag: null, id: e.pointerId, multi };
}

function onPointerMove(e) {
  if (!press || press.id !== e.pointerId) return;
  if (!press.drag) {
    if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < 6) return;
    if (!press.card || !press.pileEl || press.pileEl.dataset.pile === 'stock') return;
    const id = press.pileEl.dataset.pile;
    const pos = /^\d+$/.test(id) ? Number(press.card.dataset.pos) : pileCards(id).length - 1;
    select(id, pos);
    if (!state.selection) return;
    const ghost = document.createElement('div');
    ghost.className = 'ghost';
    const table = $('table');
    ghost.style.setProperty('--cw', getComputedStyle(table).getPropertyValue('--cw'));
    ghost.style.setProperty('--fan', getComputedStyle(press.pileEl).getPropertyValue('--fan') || '20px');
    const moving = [...press.pileEl.querySelectorAll('.card[data-pos]')].filter((c) => Number(c.dataset.pos) >= pos);
    moving.forEach((c, k) => {
      const copy = c.cloneNode(true);
      copy.classList.remove('selected');
      copy.style.setProperty('--i', String(k));
      copy.style.top = `calc(${k} * var(--fan))`;
      ghost.append(copy);
      c.classList.add('dragging');
    });
    const box = press.card.getBoundingClientRect();
    press.drag = { ghost, dx: press.x - box.left, dy: press.y - box.top, moving };
    document.body.append(ghost);
  }
  const { ghost, dx, dy } = press.drag;
  ghost.style.transform = `translate(${e.clientX - dx}px, ${e.clientY - dy}px)`;
  e.preventDefault();
}

function onPointerUp(e) {
  if (!press || press.id !== e.pointerId) return;
  const p = press;
  press = null;
  if (p.drag) {
    p.drag.ghost.remove();
    for (const c of p.drag.moving) c.classList.remove('dragging');
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const drop = under && under.closest('[data-pile]');
    if (drop && state.selection && drop.dataset.pile !== state.selection.pile) activate(drop);
    else deselect();
    return;
  }
  activate(p.node, p.multi);
}

// ------------------------------------------------------------------------------------------------ result

async function showResult() {
  const g = state.game;
  const panel = $('result');
  const won = g.status === 'GAME_STATUS_WON';
  $('result-title').textContent = won ? 'You won!' : g.status === 'GAME_STATUS_RESIGNED' ? 'Game resigned' : 'Game over';
  $('result-text').textContent = won
    ? `${g.moveCount} moves${g.undoCount ? `, ${g.undoCount} taken back` : ''}.`
    : 'The deal is revealed below.';
  panel.hidden = false;
  const certBox = $('certificate');
  certBox.hidden = !(won && g.certificate && g.certificate.encoded);
  if (!certBox.hidden) await showCertificate(g.certificate);
  const fair = $('fairness');
  fair.hidden = !g.seed;
  if (g.seed) {
    const check = await checkCommitment(g.seed, g.commitment);
    const status = $('fair-status');
    status.dataset.ok = String(check.ok);
    status.textContent = check.ok
      ? '✔ The revealed seed hashes (SHA-256) to the commitment published when the game was dealt: the deal was fixed before the first move.'
      : '✘ The revealed seed does NOT match the commitment published when the game was dealt.';
    status.className = check.ok ? 'cert-status ok' : 'cert-status bad';
    await showMixCheck(g);
    await showDealCheck(g);
  }
}

async function showMixCheck(g) {
  const status = $('mix-status');
  const saved = JSON.parse(localStorage.getItem(FIRST_VIEW) || 'null');
  const committed = saved && saved.id === g.gameId ? saved.serverCommitment : null;
  status.hidden = !(g.clientSeed && g.serverSeed);
  delete status.dataset.ok;
  if (status.hidden) return;
  if (!committed) {
    status.className = 'cert-status';
    status.textContent = 'Your seed was mixed in, but this browser kept no server seed commitment for this game.';
    return;
  }
  let check;
  try {
    check = await checkMix(g.serverSeed, g.clientSeed, g.seed, committed);
  } catch (err) {
    check = { ok: false };
  }
  status.dataset.ok = String(check.ok);
  status.className = check.ok ? 'cert-status ok' : 'cert-status bad';
  status.textContent = check.ok
    ? '✔ The server fixed its seed (SHA-256 shown before you chose yours) and the deal mixes it with your seed: neither side chose the deal alone.'
    : '✘ The revealed server seed does NOT match what the server committed to before your seed, or the deal was not mixed from the two.';
}

async function showDealCheck(g) {
  const status = $('deal-status');
  const saved = JSON.parse(localStorage.getItem(FIRST_VIEW) || 'null');
  const first = saved && saved.id === g.gameId ? saved.view : null;
  const v = state.byId.get(g.variant);
  let result;
  try {
    result = await checkDeal(fromBase64(g.seed), g.variant, v ? v.deckSize : 104, first);
  } catch (err) {
    result = { ok: false, reason: 'error' };
  }
  status.dataset.ok = String(result.ok);
  status.className = result.ok ? 'cert-status ok' : result.ok === null ? 'cert-status' : 'cert-status bad';
  status.textContent = result.ok
    ? '✔ Re-dealt in this browser with deal-v2 from the revealed seed: the same layout you were dealt.'
    : result.ok === null
      ? 'The first layout of this game is not stored in this browser, so it cannot be re-dealt here.'
      : `✘ Re-dealing the revealed seed does NOT give the layout you were dealt (${result.reason}).`;
}

async function showCertificate(cert) {
  const status = $('cert-status');
  status.textContent = 'Checking the signature…';
  status.className = 'cert-status';
  delete status.dataset.valid;
  const fields = $('cert-fields');
  fields.replaceChildren();
  let result;
  try {
    const keys = await api.signingKeys();
    result = await verifyCertificate(fromBase64(cert.encoded), keys.keys || []);
  } catch (err) {
    result = { valid: false, reason: err instanceof ApiError ? err.reason || 'no-keys' : 'error' };
  }
  status.dataset.valid = String(result.valid);
  status.dataset.reason = result.reason;
  status.className = `cert-status ${result.valid ? 'ok' : 'bad'}`;
  status.textContent = result.valid
    ? `✔ Verified in this browser: Ed25519 signature by key ${result.keyId}, published by the server.`
    : `✘ Not verified (${result.reason}).`;
  const c = result.contents || {};
  const rows = [
    ['Game', c.game_id || cert.gameId],
    ['Variant', c.variant || cert.variant],
    ['Moves', c.move_count ?? cert.moveCount],
    ['Undos', c.undo_count ?? cert.undoCount],
    ['Seed', c.seed || ''],
    ['Commitment', c.commitment || ''],
    ['Finished', c.finished_at ? new Date(c.finished_at).toISOString() : cert.finishedAt || ''],
    ['Key', result.keyId || cert.keyId],
  ];
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v ?? '');
    fields.append(dt, dd);
  }
}

// ------------------------------------------------------------------------------------------------ new game

function fillVariants() {
  const select = $('variant');
  select.replaceChildren();
  const families = new Map();
  for (const v of state.variants) {
    if (!families.has(v.family)) {
      const g = document.createElement('optgroup');
      g.label = { 'king-chain': 'King chain', 'salic-law': 'Salic Law', captives: 'Captives', sultan: "Sultan's Harem" }[v.family] || v.family;
      families.set(v.family, g);
      select.append(g);
    }
    const o = document.createElement('option');
    o.value = v.id;
    o.textContent = `${v.nameEn} — ${v.nameRu}`;
    families.get(v.family).append(o);
  }
  const last = localStorage.getItem(SAVED_VARIANT);
  if (last && state.byId.has(last)) select.value = last;
  fillOptions();
}

function fillOptions() {
  const v = state.byId.get($('variant').value);
  $('variant-summary').textContent = v ? v.summary : '';
  const box = $('variant-options');
  box.replaceChildren();
  for (const opt of (v && v.options) || []) {
    const label = document.createElement('label');
    label.className = opt.type === 'bool' ? 'check' : 'field';
    label.title = opt.description;
    let input;
    if (opt.type === 'bool') {
      input = document.createElement('input');
      input.type = 'checkbox';
      input.checked = opt.defaultValue === 'true';
      label.append(input, ` ${opt.description || opt.name}`);
    } else {
      input = document.createElement('select');
      for (const a of opt.allowedValues || []) {
        const o = document.createElement('option');
        o.value = a;
        o.textContent = a;
        input.append(o);
      }
      input.value = opt.defaultValue;
      label.append(`${opt.description || opt.name} `, input);
    }
    input.dataset.option = opt.name;
    input.dataset.type = opt.type;
    box.append(label);
  }
}

function utf8Base64(text) {
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes));
}

async function deal(e) {
  e.preventDefault();
  const request = { allowUndo: $('allow-undo').checked };
  const ticket = $('deal-ticket').value.trim();
  if (ticket) request.dealTicket = ticket;
  else {
    request.variant = $('variant').value;
    const options = {};
    for (const input of $('variant-options').querySelectorAll('[data-option]')) {
      options[input.dataset.option] = input.dataset.type === 'bool' ? String(input.checked) : input.value;
    }
    request.options = options;
    const seed = $('client-seed').value;
    if (seed) request.clientSeed = utf8Base64(seed);
    localStorage.setItem(SAVED_VARIANT, request.variant);
  }
  try {
    let serverCommitment = null;
    if (request.clientSeed) {
      // The server commits to its part before it sees ours: then neither side chose the deal.
      const prepared = await api.prepareGame();
      request.preparedId = prepared.preparedId;
      serverCommitment = prepared.serverSeedCommitment;
    }
    const response = await api.newGame(request);
    localStorage.setItem(
      FIRST_VIEW,
      JSON.stringify({ id: response.game.gameId, view: response.game.view, serverCommitment }),
    );
    $('new-game').close();
    await start(response.game, response.gameToken);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    $('variant-summary').textContent = explain(err);
  }
}

async function start(game, token) {
  for (const id of ['fair-status', 'deal-status']) delete $(id).dataset.ok;
  delete $('cert-status').dataset.valid;
  state.game = game;
  state.token = token;
  state.selection = null;
  state.legal = [];
  $('result').hidden = true;
  say('');
  render();
  save();
  await afterChange();
}

function openNewGame() {
  $('result').hidden = true;
  const dialog = $('new-game');
  if (!dialog.open) dialog.showModal();
}

async function undo() {
  if (state.busy || isOver()) return;
  state.busy = true;
  try {
    const response = await api.undoMove(state.game.gameId, state.token, state.game.version);
    state.game = response.game;
    state.selection = null;
    state.legal = [];
    render();
    say(response.undone ? `Took back ${response.undone.text}.` : '');
    await afterChange();
  } catch (err) {
    await refused(err);
  } finally {
    state.busy = false;
  }
}

async function resign() {
  if (state.busy || isOver()) return;
  if (!window.confirm('Resign this game? The deal will be revealed.')) return;
  try {
    const response = await api.resign(state.game.gameId, state.token, state.game.version);
    state.game = response.game;
    render();
    await afterChange();
  } catch (err) {
    await refused(err);
  }
}

function hint() {
  if (!state.legal.length) return;
  const order = (m) => (m.target[0] === 'f' ? 0 : /^\d+$/.test(m.target) ? 1 : m.sources.length === 0 ? 3 : 2);
  const best = [...state.legal].sort((a, b) => order(a) - order(b))[0];
  deselect();
  const table = $('table');
  for (const s of best.sources) table.querySelector(`.pile[data-pile="${s}"]`)?.classList.add('hint');
  if (best.target) table.querySelector(`.pile[data-pile="${best.target}"]`)?.classList.add('target');
  if (!best.sources.length) table.querySelector('.pile[data-pile="stock"]')?.classList.add('hint', 'target');
  say(`Try ${best.text}.`);
}

// ------------------------------------------------------------------------------------------------ start

async function main() {
  const table = $('table');
  table.addEventListener('pointerdown', onPointerDown);
  window.addEventListener('pointermove', onPointerMove, { passive: false });
  window.addEventListener('pointerup', onPointerUp);
  window.addEventListener('pointercancel', () => {
    if (press && press.drag) {
      press.drag.ghost.remove();
      for (const c of press.drag.moving) c.classList.remove('dragging');
    }
    press = null;
  });
  table.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    const pileEl = e.target.closest('[data-pile]');
    if (!pileEl) return;
    const top = pileEl.querySelector('.card.top[data-card]');
    activate(state.selection || !top ? pileEl : top);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') deselect();
    if ((e.ctrlKey || e.metaKey) && e.key === 'z') undo();
  });
  window.addEventListener('resize', () => {
    if (state.layout) fit(table, state.layout);
  });
  $('btn-new').addEventListener('click', openNewGame);
  $('btn-undo').addEventListener('click', undo);
  $('btn-resign').addEventListener('click', resign);
  $('btn-hint').addEventListener('click', hint);
  $('variant').addEventListener('change', fillOptions);
  $('new-game-form').addEventListener('submit', deal);
  $('new-cancel').addEventListener('click', () => $('new-game').close());
  $('result-close').addEventListener('click', () => {
    $('result').hidden = true;
  });
  $('result-new').addEventListener('click', openNewGame);

  try {
    const catalogue = await api.listVariants();
    state.variants = catalogue.variants || [];
    state.byId = new Map(state.variants.map((v) => [v.id, v]));
  } catch (err) {
    say(err instanceof ApiError ? explain(err) : String(err), 'refused');
    return;
  }
  fillVariants();
  const saved = JSON.parse(localStorage.getItem(SAVED_GAME) || 'null');
  if (saved && saved.id && saved.token) {
    try {
      const response = await api.getGame(saved.id, saved.token);
      await start(response.game, saved.token);
      if (isOver()) $('result').hidden = true;
      document.body.dataset.ready = 'true';
      return;
    } catch (err) {
      localStorage.removeItem(SAVED_GAME);
    }
  }
  document.body.dataset.ready = 'true';
  openNewGame();
}

main();
