// The signed-in player (docs/players.md): sign in as a guest with a name, or with a sign-in key (a guest's key
// from another device, or an ID token the front end's OpenID Connect provider issued, handed to the page as
// /#id_token=JWT); My games, to resume any of them; a new name; sign out; erase. A name is the player's own
// text: it is only ever set as text (textContent), never as HTML, and the page runs under a Content-Security-
// Policy that allows its own scripts alone.

import { api, ApiError } from './api.js';
import { t } from './i18n.js';
import { explain } from './messages.js';
import { start } from './dealing.js';
import { $, closeMenu, gameUrl, say, state } from './state.js';
import * as store from './storage.js';

const STATUS = {
  GAME_STATUS_IN_PROGRESS: 'mine.playing',
  GAME_STATUS_STUCK: 'mine.stuck',
  GAME_STATUS_WON: 'mine.won',
  GAME_STATUS_RESIGNED: 'mine.resigned',
  GAME_STATUS_EXPIRED: 'mine.expired',
  GAME_STATUS_FORFEITED: 'mine.forfeited',
};

let nextPage = '';

function tell(text, kind = 'info') {
  const line = $('player-status');
  line.textContent = text;
  line.dataset.kind = kind;
}

function refused(err) {
  if (!(err instanceof ApiError)) throw err;
  tell(explain(err), 'refused');
}

/** The menu's player entries: "Sign in", or the player's name, and My games while signed in. */
export function showPlayer() {
  const signedIn = store.identity();
  const name = signedIn && signedIn.player ? signedIn.player.displayName : '';
  for (const id of ['btn-player', 'new-sign-in']) $(id).textContent = signedIn ? t('player.menu', { name }) : t('player.sign-in');
  for (const id of ['btn-my-games', 'new-my-games']) $(id).hidden = !signedIn;
  $('new-player-note').hidden = Boolean(signedIn);
  document.body.dataset.player = signedIn && signedIn.player ? signedIn.player.id : '';
}

/** Keep ``token`` as the player's once the server says whose it is (GetPlayer); false when it refuses it. */
async function signInWith(token) {
  try {
    const answer = await api.getPlayer(token);
    store.keepIdentity(token, answer.player);
    showPlayer();
    return true;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    say(explain(err), 'refused');
    tell(explain(err), 'refused');
    return false;
  }
}

/**
 * An ID token handed to the page in its address's fragment (``/#id_token=JWT``, the form of an OpenID Connect
 * response), as the front end that signed the player in with its provider sends them here. The fragment never
 * reaches a server or a log; it is taken out of the address at once.
 */
export async function adoptFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('id_token');
  if (!token) return;
  history.replaceState(history.state, '', location.pathname + location.search);
  await signInWith(token);
}

/** On load: the kept player's name as the server has it now; a sign-in it no longer accepts is dropped. */
export async function refreshPlayer() {
  const signedIn = store.identity();
  showPlayer();
  if (!signedIn) return;
  try {
    store.keepIdentity(signedIn.token, (await api.getPlayer(signedIn.token)).player);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.reason.startsWith('IDENTITY_') && err.reason !== 'IDENTITY_PROVIDER_UNAVAILABLE') {
      store.forgetIdentity();
      say(explain(err), 'refused');
    }
  }
  showPlayer();
}

/** The player dialog: the sign-in forms, or who is signed in with what they can do. */
export function openPlayer() {
  closeMenu();
  fillPlayer();
  tell('');
  $('player').showModal();
}

function fillPlayer() {
  const signedIn = store.identity();
  $('player-out').hidden = Boolean(signedIn);
  $('player-in').hidden = !signedIn;
  $('erase-confirm').hidden = true;
  if (!signedIn) return;
  const p = signedIn.player || {};
  $('player-name').textContent = p.displayName || '';
  $('player-id').textContent = p.id || '';
  $('player-kind').textContent = t(p.kind === 'oidc' ? 'player.kind-oidc' : 'player.kind-guest');
  $('rename-input').value = p.displayName || '';
}

export async function signInGuest(event) {
  event.preventDefault();
  try {
    const created = await api.createGuest($('guest-name').value);
    store.keepIdentity(created.token, created.player);
    showPlayer();
    fillPlayer();
    tell(t('player.welcome', { name: created.player.displayName }), 'info');
  } catch (err) {
    refused(err);
  }
}

export async function signInWithKey(event) {
  event.preventDefault();
  const token = $('key-input').value.trim();
  if (!token) return;
  if (await signInWith(token)) {
    $('key-input').value = '';
    fillPlayer();
    tell(t('player.welcome', { name: store.identity().player.displayName }), 'info');
  }
}

export async function rename(event) {
  event.preventDefault();
  const signedIn = store.identity();
  if (!signedIn) return;
  try {
    const answer = await api.updatePlayer(signedIn.token, $('rename-input').value);
    store.keepIdentity(signedIn.token, answer.player);
    showPlayer();
    fillPlayer();
    tell(t('player.renamed', { name: answer.player.displayName }), 'info');
  } catch (err) {
    refused(err);
  }
}

export async function copyKey() {
  const signedIn = store.identity();
  if (!signedIn) return;
  try {
    await navigator.clipboard.writeText(signedIn.token);
    tell(t('player.key-copied'), 'info');
  } catch (err) {
    tell(t('player.key-not-copied'), 'refused');
  }
}

/** Sign out: the identity is dropped from this browser; a game open with it closes unless its own key is kept. */
export function signOut() {
  const signedIn = store.identity();
  store.forgetIdentity();
  showPlayer();
  fillPlayer();
  tell(t('player.signed-out'), 'info');
  if (signedIn && state.game && state.token === signedIn.token) {
    const record = store.game(state.game.gameId);
    if (record && record.token) state.token = record.token;
  }
}

export function askErase() {
  $('erase-confirm').hidden = false;
  $('erase-yes').focus();
}

/** ErasePlayer: what the server keeps about the player goes (their games unlinked); then signed out here. */
export async function erase() {
  const signedIn = store.identity();
  if (!signedIn) return;
  try {
    const answer = await api.erasePlayer(signedIn.token);
    signOut();
    tell(t('player.erased', { n: Number(answer.gamesUnlinked || 0) }), 'info');
  } catch (err) {
    refused(err);
  }
}

// ------------------------------------------------------------------------------------------------ My games

function when(summary) {
  const at = summary.finishedAt || summary.updatedAt || summary.createdAt || '';
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(document.documentElement.lang, { dateStyle: 'medium', timeStyle: 'short' });
}

function entry(summary) {
  const li = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'mine';
  button.dataset.game = summary.gameId;
  const v = state.byId.get(summary.variant);
  const name = v ? (document.documentElement.lang === 'ru' ? v.nameRu : v.nameEn) : summary.variant;
  const title = document.createElement('b');
  title.textContent = name;
  const detail = document.createElement('span');
  detail.textContent = t('mine.detail', {
    status: t(STATUS[summary.status] || 'mine.playing'),
    moves: Number(summary.moveCount || 0),
    when: when(summary),
  });
  button.append(title, detail);
  if (state.game && state.game.gameId === summary.gameId) button.setAttribute('aria-current', 'true');
  button.addEventListener('click', () => resume(summary.gameId));
  li.append(button);
  return li;
}

async function loadPage(first) {
  const signedIn = store.identity();
  if (!signedIn) return;
  const list = $('my-games-list');
  try {
    const page = await api.listGames(signedIn.token, first ? '' : nextPage);
    if (first) list.replaceChildren();
    for (const summary of page.games || []) list.append(entry(summary));
    nextPage = page.nextPageToken || '';
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    nextPage = '';
    $('my-games-status').textContent = explain(err);
  }
  $('my-games-more').hidden = !nextPage;
  $('my-games-none').hidden = list.children.length > 0;
  $('my-games').dataset.loaded = String(list.children.length);
}

/** My games: the player's games, newest first, a page at a time; a click resumes one. */
export async function openMyGames() {
  closeMenu();
  if ($('player').open) $('player').close();
  $('my-games-status').textContent = '';
  delete $('my-games').dataset.loaded;
  $('my-games').showModal();
  await loadPage(true);
}

export async function moreGames() {
  await loadPage(false);
}

/** Open one of the player's games with their identity (no game token needed: it may have been dealt anywhere). */
async function resume(gameId) {
  const signedIn = store.identity();
  if (!signedIn) return;
  try {
    const answer = await api.getGame(gameId, signedIn.token);
    for (const id of ['my-games', 'player', 'new-game']) if ($(id).open) $(id).close();
    history.pushState({ game: gameId }, '', gameUrl(gameId));
    const record = store.game(gameId);
    await start(answer.game, (record && record.token) || signedIn.token);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    $('my-games-status').textContent = explain(err);
  }
}
