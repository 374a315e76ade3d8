// The web client's controller: deal, select a card (click, tap, drag or keyboard), highlight its legal
// destinations from LegalMoves, play, undo, explain refusals; at the end show the result, the revealed deal
// and (after a win) the certificate checked in the browser. The page only ever holds what the API sends a
// player: the view (hidden cards as counts), the legal moves, and the seed once the game is over.
//
// URLs: /?variant=ID&option=value deals a new game of that game; /?game=ID reopens a game whose key (token)
// this browser keeps; /?lang=ru picks the language.

import { api, ApiError } from './api.js';
import { cardLabel } from './cards.js';
import { checkCommitment, checkMix, fromBase64, verifyCertificate } from './certificate.js';
import { checkDeal } from './deal.js';
import { detect, duration, lang, setLang, t, translate } from './i18n.js';
import { attachInput } from './input.js';
import { explain, reasonCode, reasonText } from './messages.js';
import { animateFrom, celebrate, snapshot } from './motion.js';
import { revealHidden } from './reveal.js';
import { renderRules, summary } from './rules.js';
import * as store from './storage.js';
import { drawTable, fit } from './table.js';

const $ = (id) => document.getElementById(id);

const PREFIX = {
  PILE_KIND_COLUMN: '',
  PILE_KIND_RESERVE: 'r',
  PILE_KIND_FOUNDATION: 'f',
  PILE_KIND_WASTE: 'w',
  PILE_KIND_CAPTIVE: 'c',
  PILE_KIND_KING_ROW: 'k',
};
const OVER = new Set(['GAME_STATUS_WON', 'GAME_STATUS_RESIGNED', 'GAME_STATUS_EXPIRED', 'GAME_STATUS_FORFEITED']);
const RESERVED_PARAMS = new Set(['variant', 'game', 'lang', 'undo']);

const state = {
  variants: [],
  byId: new Map(),
  game: null,
  token: null,
  legal: [],
  selection: null, // { pile, pos, count }
  batch: [], // columns whose free cards go to the reserve together ("3,5,5-r"), king-chain games only
  busy: false,
  revealed: null, // the hidden cards, once the game is over and its seed re-dealt
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

const variant = () => (state.game ? state.byId.get(state.game.variant) : null);
const view = () => state.game.view;
const isColumn = (id) => /^\d+$/.test(id);
const isOver = () => !state.game || OVER.has(state.game.status);
const variantName = (v) => (v ? (lang() === 'ru' ? v.nameRu : v.nameEn) || v.id : '');

function pileCards(id) {
  const v = view();
  if (isColumn(id)) return (v.columns[Number(id) - 1] || {}).cards || [];
  if (id[0] === 'r') return v.cells[Number(id.slice(1)) - 1] ? [v.cells[Number(id.slice(1)) - 1]] : [];
  if (id[0] === 'f') return (v.foundations[Number(id.slice(1)) - 1] || {}).cards || [];
  if (id === 'w') return v.waste || [];
  if (id[0] === 'c') {
    const c = (v.captives || [])[Number(id.slice(1)) - 1];
    return c && c !== '??' ? [c] : [];
  }
  return [];
}

/** Seconds played: from the deal to the end (or to now), by the server's clock. */
function elapsed(g = state.game) {
  if (!g || !g.createdAt) return 0;
  const end = g.finishedAt ? Date.parse(g.finishedAt) : OVER.has(g.status) ? Date.parse(g.updatedAt) : Date.now();
  return Math.max(0, (end - Date.parse(g.createdAt)) / 1000);
}

function gameUrl(id) {
  return `/?game=${encodeURIComponent(id)}`;
}

// ------------------------------------------------------------------------------------------------ drawing

function render({ animate = true } = {}) {
  const table = $('table');
  const v = variant();
  if (!state.game || !v) {
    table.replaceChildren();
    return;
  }
  // A keyboard player keeps their place across the redraw; a mouse or finger leaves no focus ring behind.
  const active = document.activeElement?.closest?.('#table [data-pile]');
  const focused = active && active.matches(':focus-visible') ? active.dataset.pile : null;
  const before = animate ? snapshot(table) : null;
  drawTable(table, v, view(), state.revealed);
  if (before) animateFrom(table, before);
  table.classList.toggle('over', isOver());
  for (const p of table.querySelectorAll('.pile[data-pile]')) {
    p.tabIndex = 0;
    p.setAttribute('role', 'button');
  }
  if (focused) table.querySelector(`.pile[data-pile="${focused}"]`)?.focus({ preventScroll: true });
  controls();
}

/** The header, the buttons and the marks on the table: all that changes when only the legal moves do. */
function controls() {
  const v = variant();
  if (!state.game || !v) return;
  const g = state.game;
  $('game-title').textContent = variantName(v);
  $('moves').textContent = String(g.moveCount || 0);
  $('undos').textContent = String(g.undoCount || 0);
  tick();
  const status = $('status');
  status.textContent = t(`status.${g.status}`) === `status.${g.status}` ? '' : t(`status.${g.status}`);
  status.className = `status ${g.status === 'GAME_STATUS_WON' ? 'won' : g.status === 'GAME_STATUS_STUCK' ? 'stuck' : ''}`;
  $('btn-undo').disabled = isOver() || !g.allowUndo || !(g.moveCount > 0);
  $('btn-resign').disabled = isOver();
  $('btn-hint').disabled = isOver() || state.legal.length === 0;
  document.body.dataset.version = String(g.version);
  document.body.dataset.status = g.status;
  showSelection();
}

function tick() {
  $('timer').textContent = state.game ? duration(elapsed()) : '0:00';
}

function clearMarks() {
  for (const n of $('table').querySelectorAll('.selected, .target, .hint')) n.classList.remove('selected', 'target', 'hint');
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

// ------------------------------------------------------------------------------------------------ moves

function movesFrom(sel) {
  return state.legal.filter((m) => m.sources.length === 1 && m.sources[0] === sel.pile);
}

function countFits(m, sel) {
  if (isColumn(sel.pile)) return (m.count ?? 1) === sel.count || (sel.count === 1 && isColumn(m.target));
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
  const exact = candidates.filter((m) => (m.count ?? 1) === sel.count || !isColumn(sel.pile));
  const chosen = exact.length ? exact[0] : candidates.length === 1 ? candidates[0] : null;
  if (chosen) return chosen.target === wanted ? chosen.text : chosen.text.replace(/-r\d+/, `-${target}`);
  const run = isColumn(sel.pile) && isColumn(wanted) ? `/${sel.count}` : '';
  return `${sel.pile}-${wanted}${run}`;
}

function select(pile, pos) {
  const cards = pileCards(pile);
  if (!cards.length || pos < 0 || pos >= cards.length) return;
  state.batch = [];
  state.selection = { pile, pos, count: cards.length - pos };
  showSelection();
  const card = cardLabel(cards[pos]);
  const more = state.selection.count - 1;
  say(targetsOf(state.selection).size ? t(more ? 'msg.pick-run' : 'msg.pick', { card, more }) : '');
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
  store.keepGame(state.game.gameId, { token: state.token, variant: state.game.variant });
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

async function reload() {
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

/** The foundation move for the selection (a king to the king row in Captives), if there is one. */
function homeMove(sel) {
  if (sel.count !== 1) return null;
  return movesFrom(sel).find((m) => (m.target[0] === 'f' || m.target === 'k') && m.sources[0] !== m.target && (m.count ?? 1) === 1) || null;
}

/** Send the top card of ``pile`` (or the selection) to a foundation: the double-click, double-tap and F key. */
function sendHome(pile = null) {
  if (isOver() || state.busy) return false;
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
function activate(node, multi = false) {
  if (isOver() || state.busy) return;
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
        else deselect();
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
function stretch(delta) {
  const sel = state.selection;
  if (!sel || !isColumn(sel.pile)) return false;
  select(sel.pile, Math.min(pileCards(sel.pile).length - 1, Math.max(0, sel.pos - delta)));
  return true;
}

// ------------------------------------------------------------------------------------------------ result

async function showResult() {
  const g = state.game;
  const v = variant();
  const won = g.status === 'GAME_STATUS_WON';
  $('result-title').textContent = t(won ? 'result.won' : g.status === 'GAME_STATUS_RESIGNED' ? 'result.resigned' : 'result.over');
  const seconds = Math.round(elapsed());
  $('result-text').textContent = won ? t('result.won-text', { moves: g.moveCount, undos: g.undoCount, time: duration(seconds) }) : '';
  const { entry, best } = store.countEnd(g.variant, g.gameId, { won, seconds, moves: g.moveCount });
  $('result-stats').textContent = `${won && best ? `${t('result.new-best')} ` : ''}${t('result.stats', {
    name: variantName(v),
    played: entry.played,
    won: entry.won,
    streak: entry.streak,
  })}`;
  $('result').hidden = false;
  const cert = won && g.certificate && g.certificate.encoded ? g.certificate : null;
  if (cert) store.keepGame(g.gameId, { certificate: cert, finished: Date.now() });
  $('certificate').hidden = !cert;
  $('cert-none').hidden = !(won && !cert);
  if (won) celebrate($('table'));
  if (cert) await fillCertificate($('certificate'), cert);
  await showDeal(g);
}

/** The revealed seed: checked against the commitment, re-dealt, and the hidden cards turned face up. */
async function showDeal(g) {
  const fair = $('fairness');
  fair.hidden = !g.seed;
  if (!g.seed) return;
  const check = await checkCommitment(g.seed, g.commitment);
  const fields = $('seed-fields');
  fields.replaceChildren();
  addField(fields, t('fair.seed'), check.seedHex);
  addField(fields, t('fair.commitment'), check.commitment);
  const status = $('fair-status');
  status.dataset.ok = String(check.ok);
  status.textContent = t(check.ok ? 'fair.ok' : 'fair.bad');
  status.className = check.ok ? 'cert-status ok' : 'cert-status bad';
  await showMixCheck(g);
  await showDealCheck(g);
  const v = variant();
  if (g.status !== 'GAME_STATUS_WON' && v && v.family !== 'king-chain') {
    try {
      state.revealed = await revealHidden(fromBase64(g.seed), v, v.deckSize || 104, g.view);
    } catch (err) {
      state.revealed = null;
    }
    $('revealed-note').hidden = !state.revealed;
    render({ animate: false });
  } else {
    $('revealed-note').hidden = true;
  }
  document.body.dataset.revealed = String(Boolean(state.revealed));
}

async function showMixCheck(g) {
  const status = $('mix-status');
  const record = store.game(g.gameId);
  const committed = record ? record.serverCommitment : null;
  status.hidden = !(g.clientSeed && g.serverSeed);
  delete status.dataset.ok;
  if (status.hidden) return;
  if (!committed) {
    status.className = 'cert-status';
    status.textContent = t('mix.nokept');
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
  status.textContent = t(check.ok ? 'mix.ok' : 'mix.bad');
}

async function showDealCheck(g) {
  const status = $('deal-status');
  const record = store.game(g.gameId);
  const first = record ? record.firstView || null : null;
  const v = state.byId.get(g.variant);
  let result;
  try {
    result = await checkDeal(fromBase64(g.seed), g.variant, v ? v.deckSize : 104, first);
  } catch (err) {
    result = { ok: false, reason: 'error' };
  }
  status.dataset.ok = String(result.ok);
  status.className = result.ok ? 'cert-status ok' : result.ok === null ? 'cert-status' : 'cert-status bad';
  status.textContent = result.ok ? t('deal.ok') : result.ok === null ? t('deal.unknown') : t('deal.bad', { reason: result.reason });
}

function addField(list, name, value) {
  const dt = document.createElement('dt');
  dt.textContent = name;
  const dd = document.createElement('dd');
  dd.textContent = String(value ?? '');
  list.append(dt, dd);
}

/** The envelope's text (what certificate.js and the API's VerifyCertificate take). */
function certificateText(cert) {
  return new TextDecoder().decode(fromBase64(cert.encoded));
}

/** The payload a certificate claims, unchecked (for display under a refusal), or {}. */
function claimed(cert) {
  try {
    return JSON.parse(new TextDecoder().decode(fromBase64(JSON.parse(certificateText(cert)).payload))) || {};
  } catch (err) {
    return {};
  }
}

/** Fill a certificate box (status, every field of the signed payload, copy and download) for ``cert``. */
async function fillCertificate(root, cert) {
  const status = root.querySelector('.cert-status');
  status.textContent = t('cert.checking');
  status.className = 'cert-status';
  delete status.dataset.valid;
  const fields = root.querySelector('.cert-fields');
  fields.replaceChildren();
  root.querySelector('.cert-copy').onclick = async () => {
    try {
      await navigator.clipboard.writeText(certificateText(cert));
      say(t('msg.copied'));
    } catch (err) {
      say(String(err), 'refused');
    }
  };
  root.querySelector('.cert-download').onclick = () => {
    const blob = new Blob([certificateText(cert)], { type: 'application/json' });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = `patience-certificate-${cert.gameId || 'game'}.json`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };
  let result;
  try {
    const keys = await api.signingKeys();
    result = await verifyCertificate(fromBase64(cert.encoded), keys.keys || []);
  } catch (err) {
    result = { valid: false, reason: err instanceof ApiError ? reasonCode(err.reason) || 'NO_KEYS' : 'UNREACHABLE' };
  }
  status.dataset.valid = String(result.valid);
  status.dataset.reason = result.reason;
  status.className = `cert-status ${result.valid ? 'ok' : 'bad'}`;
  const why = reasonText(result.reason) || result.reason;
  status.textContent = result.valid ? t('cert.ok', { key: result.keyId }) : t('cert.bad', { reason: why });
  // Whatever the signed payload holds, in its own order; the well-known fields get names people read. A
  // certificate that did not verify still shows what it claims (under the refusal above).
  const contents = result.contents || claimed(cert);
  for (const [key, value] of Object.entries(contents)) {
    const label = t(`cert.field.${key}`);
    let text = value;
    if (key.endsWith('_at') && typeof value === 'number') text = new Date(value).toISOString();
    else if (Array.isArray(value)) text = value.join(' ');
    else if (value && typeof value === 'object') text = JSON.stringify(value);
    addField(fields, label.startsWith('cert.field.') ? key : label, text);
  }
}

/** The kept certificates, newest first, each reopened and checked again on demand. */
async function openCertificates() {
  closeMenu();
  const dialog = $('cert-dialog');
  const kept = store.certificates();
  const pick = $('cert-pick');
  pick.replaceChildren();
  for (const c of kept) {
    const o = document.createElement('option');
    o.value = c.id;
    const v = state.byId.get(c.variant);
    o.textContent = `${variantName(v) || c.variant} · ${new Date(c.finished || c.dealt).toLocaleString(lang())} · ${c.id}`;
    pick.append(o);
  }
  const body = $('cert-dialog-body');
  $('cert-pick-field').hidden = !kept.length;
  body.hidden = !kept.length;
  $('cert-dialog-status').textContent = '';
  if (!dialog.open) dialog.showModal();
  if (!kept.length) {
    body.hidden = false;
    body.querySelector('.cert-fields').replaceChildren();
    $('cert-dialog-status').textContent = t('cert.empty');
    body.querySelector('.buttons').hidden = true;
    return;
  }
  body.querySelector('.buttons').hidden = false;
  const current = state.game && kept.find((c) => c.id === state.game.gameId);
  pick.value = current ? current.id : kept[0].id;
  const show = () => fillCertificate(body, store.game(pick.value).certificate);
  pick.onchange = show;
  await show();
}

// ------------------------------------------------------------------------------------------------ statistics, rules

function openStats() {
  closeMenu();
  const all = store.stats();
  const body = $('stats-body');
  body.replaceChildren();
  const ids = state.variants.map((v) => v.id).filter((id) => all[id] && all[id].played);
  if (!ids.length) {
    const p = document.createElement('p');
    p.textContent = t('stats.none');
    body.append(p);
  } else {
    const table = document.createElement('table');
    table.className = 'stats';
    const head = table.createTHead().insertRow();
    for (const k of ['stats.game', 'stats.played', 'stats.won', 'stats.streak', 'stats.best-streak', 'stats.best-time', 'stats.best-moves']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = t(k);
      head.append(th);
    }
    const tbody = table.createTBody();
    for (const id of ids) {
      const s = all[id];
      const row = tbody.insertRow();
      row.dataset.variant = id;
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = variantName(state.byId.get(id));
      row.append(th);
      for (const value of [s.played, s.won, s.streak, s.bestStreak, s.bestTime === null ? '–' : duration(s.bestTime), s.bestMoves ?? '–']) {
        row.insertCell().textContent = String(value);
      }
    }
    body.append(table);
  }
  $('stats').showModal();
}

function openRules() {
  closeMenu();
  const v = variant() || state.byId.get($('variant').value) || state.variants[0];
  renderRules($('rules-body'), v, lang());
  $('rules').showModal();
}

function closeMenu() {
  $('menu').open = false;
}

// ------------------------------------------------------------------------------------------------ new game

function fillVariants() {
  const select = $('variant');
  const chosen = select.value;
  select.replaceChildren();
  const families = new Map();
  for (const v of state.variants) {
    if (!families.has(v.family)) {
      const g = document.createElement('optgroup');
      g.label = t(`family.${v.family}`);
      families.set(v.family, g);
      select.append(g);
    }
    const o = document.createElement('option');
    o.value = v.id;
    o.textContent = lang() === 'ru' ? `${v.nameRu} — ${v.nameEn}` : `${v.nameEn} — ${v.nameRu}`;
    families.get(v.family).append(o);
  }
  const last = chosen || store.lastVariant();
  if (last && state.byId.has(last)) select.value = last;
  fillOptions();
}

function fillOptions(values = {}) {
  const v = state.byId.get($('variant').value);
  $('variant-summary').textContent = v ? summaryOf(v) : '';
  const box = $('variant-options');
  box.replaceChildren();
  for (const opt of (v && v.options) || []) {
    const label = document.createElement('label');
    label.className = opt.type === 'bool' ? 'check' : 'field';
    const text = t(`option.${opt.name}`) === `option.${opt.name}` ? opt.description || opt.name : t(`option.${opt.name}`);
    let input;
    const value = values[opt.name] ?? opt.defaultValue;
    if (opt.type === 'bool') {
      input = document.createElement('input');
      input.type = 'checkbox';
      input.checked = value === 'true';
      label.append(input, ` ${text}`);
    } else {
      input = document.createElement('select');
      for (const a of opt.allowedValues || []) {
        const o = document.createElement('option');
        o.value = a;
        o.textContent = a;
        input.append(o);
      }
      input.value = value;
      label.append(`${text} `, input);
    }
    input.dataset.option = opt.name;
    input.dataset.type = opt.type;
    input.addEventListener('change', showLink);
    box.append(label);
  }
  showLink();
}

function summaryOf(v) {
  return summary(v, lang()) || v.summary;
}

function chosenOptions() {
  const options = {};
  for (const input of $('variant-options').querySelectorAll('[data-option]')) {
    options[input.dataset.option] = input.dataset.type === 'bool' ? String(input.checked) : input.value;
  }
  return options;
}

/** The link that deals this game with these options: /?variant=ID&option=value (defaults left out). */
function showLink() {
  const v = state.byId.get($('variant').value);
  if (!v) return;
  const params = new URLSearchParams({ variant: v.id });
  const options = chosenOptions();
  for (const opt of v.options || []) if (options[opt.name] !== opt.defaultValue) params.set(opt.name, options[opt.name]);
  const link = $('variant-link');
  link.href = `/?${params}`;
  link.textContent = `${location.origin}/?${params}`;
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
    request.options = chosenOptions();
    const seed = $('client-seed').value;
    if (seed) request.clientSeed = utf8Base64(seed);
    store.keepVariant(request.variant);
  }
  try {
    await dealGame(request);
    $('new-game').close();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    $('variant-summary').textContent = explain(err);
  }
}

/** NewGame (after PrepareGame when the player brings a seed), kept in the browser under its own URL. */
async function dealGame(request) {
  let serverCommitment = null;
  if (request.clientSeed) {
    // The server commits to its part before it sees ours: then neither side chose the deal.
    const prepared = await api.prepareGame();
    request.preparedId = prepared.preparedId;
    serverCommitment = prepared.serverSeedCommitment;
  }
  const response = await api.newGame(request);
  const g = response.game;
  store.keepGame(g.gameId, { token: response.gameToken, variant: g.variant, firstView: g.view, serverCommitment, dealt: Date.now() });
  store.countDeal(g.variant, g.gameId);
  history.pushState({ game: g.gameId }, '', gameUrl(g.gameId));
  await start(g, response.gameToken);
}

async function start(game, token) {
  for (const id of ['fair-status', 'deal-status']) delete $(id).dataset.ok;
  delete $('cert-status').dataset.valid;
  delete document.body.dataset.revealed;
  state.game = game;
  state.token = token;
  state.selection = null;
  state.batch = [];
  state.legal = [];
  state.revealed = null;
  $('result').hidden = true;
  say('');
  render({ animate: false });
  await afterChange();
}

function openNewGame() {
  $('result').hidden = true;
  closeMenu();
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
    say(response.undone ? t('msg.took-back', { move: response.undone.text }) : '');
    await afterChange();
  } catch (err) {
    await refused(err);
  } finally {
    state.busy = false;
  }
}

async function resign() {
  if (state.busy || isOver()) return;
  if (!window.confirm(t('msg.resign-confirm'))) return;
  state.busy = true;
  try {
    const response = await api.resign(state.game.gameId, state.token, state.game.version);
    state.game = response.game;
    render();
    await afterChange();
  } catch (err) {
    await refused(err);
  } finally {
    state.busy = false;
  }
}

function hint() {
  if (!state.legal.length) return;
  const order = (m) => (m.target[0] === 'f' ? 0 : isColumn(m.target) ? 1 : m.sources.length === 0 ? 3 : 2);
  const best = [...state.legal].sort((a, b) => order(a) - order(b))[0];
  deselect();
  const table = $('table');
  for (const s of best.sources) table.querySelector(`.pile[data-pile="${s}"]`)?.classList.add('hint');
  if (best.target) table.querySelector(`.pile[data-pile="${best.target}"]`)?.classList.add('target');
  if (!best.sources.length) table.querySelector('.pile[data-pile="stock"]')?.classList.add('hint', 'target');
  say(t('msg.try', { move: best.text }));
}

function switchLanguage() {
  closeMenu();
  setLang(lang() === 'ru' ? 'en' : 'ru');
  relabel();
}

/** Every word on the page again, in the language now chosen. */
function relabel() {
  translate();
  $('btn-lang').lang = lang() === 'ru' ? 'en' : 'ru';
  document.title = t('brand');
  fillVariants();
  if (state.game) {
    render({ animate: false });
    if (!$('result').hidden) showResult();
  }
}

// ------------------------------------------------------------------------------------------------ opening a page

/** Open game ``id`` with the key this browser keeps for it; false when there is none or the server lost it. */
async function reopen(id) {
  const record = store.game(id);
  if (!record || !record.token) return false;
  try {
    const response = await api.getGame(id, record.token);
    await start(response.game, record.token);
    if (isOver()) $('result').hidden = true;
    return true;
  } catch (err) {
    if (err instanceof ApiError && ['GAME_NOT_FOUND', 'WRONG_TOKEN', 'GAME_EXPIRED'].includes(err.reason)) store.forgetGame(id);
    return false;
  }
}

/** /?variant=ID&option=value: the request that deals it, or an explanation of what is wrong with the link. */
function requestFromUrl(params) {
  const id = params.get('variant');
  const v = state.byId.get(id);
  if (!v) return { error: t('msg.unknown-variant', { id }) };
  const options = {};
  for (const [name, value] of params) {
    if (RESERVED_PARAMS.has(name)) continue;
    const spec = (v.options || []).find((o) => o.name === name);
    if (!spec || !(spec.allowedValues || []).includes(value)) return { error: t('msg.bad-option', { name, value }) };
    options[name] = value;
  }
  return { request: { variant: id, options, allowUndo: params.get('undo') !== 'false' } };
}

async function openFromUrl() {
  const params = new URLSearchParams(location.search);
  if (params.get('variant')) {
    const { request, error } = requestFromUrl(params);
    if (request) {
      $('variant').value = request.variant;
      store.keepVariant(request.variant);
      try {
        await dealGame(request);
        history.replaceState({ game: state.game.gameId }, '', gameUrl(state.game.gameId));
        return;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        say(explain(err), 'refused');
      }
    } else {
      say(error, 'refused');
    }
    openNewGame();
    return;
  }
  const wanted = params.get('game');
  if (wanted) {
    if (await reopen(wanted)) return;
    say(t('msg.no-token', { id: wanted }), 'refused');
    openNewGame();
    return;
  }
  const last = store.lastGameId();
  if (last && (await reopen(last))) {
    history.replaceState({ game: last }, '', gameUrl(last));
    return;
  }
  openNewGame();
}

async function main() {
  detect();
  translate();
  document.title = t('brand');
  $('btn-lang').lang = lang() === 'ru' ? 'en' : 'ru';
  const table = $('table');
  attachInput(table, {
    activate,
    select,
    deselect,
    sendHome,
    stretch,
    undo,
    pileCards,
    isColumn,
    selection: () => state.selection,
    playable: () => !isOver() && !state.busy,
  });
  window.addEventListener('resize', () => {
    if (state.game) fit(table);
  });
  window.addEventListener('popstate', () => {
    const id = new URLSearchParams(location.search).get('game');
    if (id && (!state.game || id !== state.game.gameId)) reopen(id);
  });
  setInterval(() => {
    if (state.game && !isOver()) tick();
  }, 1000);
  $('btn-new').addEventListener('click', openNewGame);
  $('btn-undo').addEventListener('click', undo);
  $('btn-resign').addEventListener('click', resign);
  $('btn-hint').addEventListener('click', hint);
  $('btn-rules').addEventListener('click', openRules);
  $('btn-stats').addEventListener('click', openStats);
  $('btn-cert').addEventListener('click', openCertificates);
  $('btn-lang').addEventListener('click', switchLanguage);
  $('variant').addEventListener('change', () => fillOptions());
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
  await openFromUrl();
  // From navigation to a table that can be played (drawn, its legal moves known): bench/web_load.py reads it.
  performance.mark('patience-ready');
  document.body.dataset.ready = 'true';
}

main();
