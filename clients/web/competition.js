// Daily deals and leaderboards (docs/competition.md): the New game dialog's "Daily deal", the note a daily game
// shows while its day lasts, and the Leaderboard panel, whose every entry is checked here, in the browser, by its
// certificate against the published keys (leaderboard.js, certificate.js), never on the server's word.
//
// A signed-in player's identity token, when this browser keeps one (storage.js), goes with a daily deal (their one
// ranked game of it: play.js sends it with every NewGame) and with a board (their own entry).

import { api, ApiError } from './api.js';
import { parseBoardName } from './certificate.js';
import { checkLeaderboard } from './leaderboard.js';
import { duration, t } from './i18n.js';
import { explain } from './messages.js';
import { $, closeMenu, state, variantName } from './state.js';
import * as store from './storage.js';

const PAGE = 25;

const identityToken = () => store.identity()?.token ?? null;

let publishedKeys = null; // GetSigningKeys' list, fetched once per page

async function keys() {
  if (!publishedKeys) publishedKeys = (await api.signingKeys()).keys || [];
  return publishedKeys;
}

/** A UTC day as YYYY-MM-DD. */
function utcDay(date) {
  return date.toISOString().slice(0, 10);
}

function timeOfDay(iso) {
  return iso ? new Date(iso).toISOString().slice(11, 16) : '';
}

// ------------------------------------------------------------------------------------------------ a daily game

/**
 * The note a daily game shows: while its day lasts, its seed and certificate are sealed (they would tell the deal
 * to those still playing it); the board it counts on, if any.
 */
export function showDailyNote(g) {
  const note = $('daily-note');
  const daily = g.dealt === 'daily';
  note.hidden = !daily || Boolean(g.seed);
  if (!note.hidden) note.textContent = t('daily.sealed');
  $('result-board').hidden = !g.board;
  $('result-board').dataset.board = g.board || '';
}

// ------------------------------------------------------------------------------------------------ the board panel

function boardName(variant, kind, date, number) {
  return kind === 'daily' ? `daily-${variant}-${date}` : `public-${variant}-${number}`;
}

function fillPick(name) {
  const select = $('board-variant');
  select.replaceChildren();
  for (const v of state.variants) {
    const o = document.createElement('option');
    o.value = v.id;
    o.textContent = variantName(v);
    select.append(o);
  }
  const parsed = parseBoardName(name || '');
  const fallback = state.game ? state.game.variant : $('variant').value;
  select.value = parsed && state.byId.has(parsed.variant) ? parsed.variant : fallback;
  $('board-kind').value = parsed ? parsed.kind : 'daily';
  $('board-date').value = parsed && parsed.kind === 'daily' ? parsed.date : utcDay(new Date());
  $('board-number').value = parsed && parsed.kind === 'public' ? String(parsed.number) : '1';
  // The options of the board named (a game of other rules than the defaults ranks on a board of its own): kept for
  // that game while the pick changes only the day or the number.
  const dialog = $('board');
  dialog.dataset.optionsOf = parsed ? parsed.variant : '';
  dialog.dataset.options = parsed ? parsed.options.map(([k, v]) => `:${k}=${v}`).join('') : '';
  kindChanged();
}

function kindChanged() {
  const daily = $('board-kind').value === 'daily';
  $('board-date-field').hidden = !daily;
  $('board-number-field').hidden = daily;
}

/** Open the Leaderboard panel on ``name``, else the current game's board, else today's daily deal of the game. */
export async function openBoard(name = null) {
  closeMenu();
  const wanted = name || (state.game && state.game.board) || '';
  fillPick(wanted);
  const dialog = $('board');
  if (!dialog.open) dialog.showModal();
  await showBoard(wanted || pickedName());
}

function pickedName() {
  const variant = $('board-variant').value;
  const dialog = $('board');
  const options = dialog.dataset.optionsOf === variant ? dialog.dataset.options || '' : '';
  return boardName(variant, $('board-kind').value, $('board-date').value, $('board-number').value.trim()) + options;
}

async function showBoard(name, pageToken = '') {
  const body = $('board-body');
  const status = $('board-state');
  delete $('board').dataset.checked; // set again once this board's marks are computed
  $('board-more').hidden = true;
  if (!pageToken) {
    // a new board: nothing of the last one stays in view under this one's name while its page loads
    body.replaceChildren();
    status.textContent = '';
    status.className = 'summary';
    $('board-empty').hidden = true;
    $('board-own').textContent = '';
  }
  $('board-name').textContent = name;
  let board;
  try {
    board = await api.leaderboard(name, { pageSize: String(PAGE), ...(pageToken ? { pageToken } : {}) }, identityToken());
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    status.textContent = explain(err);
    status.className = 'cert-status bad';
    delete $('board').dataset.checked;
    return;
  }
  status.className = 'summary';
  status.textContent = boardState(board);
  const mine = board.own && board.own.player ? board.own.player.id : '';
  const rows = (board.entries || []).map((entry) => row(entry, entry.player && entry.player.id === mine));
  body.append(...rows);
  $('board-empty').hidden = body.children.length > 0;
  $('board-own').textContent = board.own && board.own.rank ? t('board.own', { rank: board.own.rank, total: board.total }) : '';
  $('board-more').hidden = !board.nextPageToken;
  $('board-more').onclick = () => showBoard(name, board.nextPageToken);
  await markChecks(board, rows);
}

function boardState(board) {
  const n = Number(board.total || 0);
  const count = t('board.count', { n });
  if (board.kind === 'public') return `${count} ${t('board.public-note')}`;
  if (board.frozen) return `${count} ${t('board.frozen')}`;
  return `${count} ${t('board.sealed', { time: timeOfDay(board.closesAt) })}`;
}

function row(entry, own) {
  const tr = document.createElement('tr');
  tr.dataset.rank = String(entry.rank);
  if (own) tr.className = 'own';
  const seconds = Math.round((Number.parseFloat(entry.playTime || '0') || 0));
  const cells = [
    String(entry.rank),
    entry.player ? entry.player.displayName : '', // text only: a name is untrusted (docs/players.md)
    String(entry.moveCount || 0),
    String(entry.undoCount || 0),
    duration(seconds),
  ];
  for (const text of cells) tr.insertCell().textContent = text;
  const mark = tr.insertCell();
  mark.className = 'check';
  mark.textContent = '…';
  return tr;
}

/** Each entry's mark: ✓ when its certificate checks in this browser and says what the entry says, ✗ and why not. */
async function markChecks(board, rows) {
  const dialog = $('board');
  let result;
  try {
    result = await checkLeaderboard(board, await keys());
  } catch (err) {
    result = { reason: 'NO_WEBCRYPTO', entries: rows.map(() => ({ reason: 'NO_WEBCRYPTO' })) };
  }
  result.entries.forEach((check, i) => {
    const cell = rows[i].querySelector('.check');
    const sealed = check.reason === 'SEALED';
    cell.dataset.check = check.reason === '' ? 'ok' : sealed ? 'sealed' : 'bad';
    cell.textContent = check.reason === '' ? '✓' : sealed ? '–' : `✗ ${check.reason}`;
    cell.title = t(check.reason === '' ? 'board.verified' : sealed ? 'board.not-yet' : 'board.refused', { reason: check.reason });
  });
  dialog.dataset.checked = result.reason || (result.entries.every((e) => e.reason === '') ? 'ok' : 'bad');
}

export function attachBoard() {
  $('btn-board').addEventListener('click', () => openBoard());
  $('result-board').addEventListener('click', () => openBoard($('result-board').dataset.board));
  $('board-kind').addEventListener('change', kindChanged);
  $('board-form').addEventListener('submit', (e) => {
    e.preventDefault();
    showBoard(pickedName());
  });
}

/** The panel's words again, in the language now chosen (its names and rows come from the server). */
export function relabelBoard() {
  if (!$('board').open) return;
  const name = $('board-name').textContent;
  fillPick(name);
  showBoard(name);
}
