// Dealing a game (NewGame, after PrepareGame when the player brings a seed), starting one on the table (a new
// deal, a kept game, a game from My games), playing a finished deal again, and restarting the deal in play.

import { api, ApiError } from './api.js';
import { loadClock } from './clock.js';
import { render } from './draw.js';
import { t } from './i18n.js';
import { explain } from './messages.js';
import { afterChange, idle, refused } from './play.js';
import { $, gameUrl, isOver, say, state } from './state.js';
import * as store from './storage.js';

/**
 * NewGame (after PrepareGame when the player brings a seed), kept in the browser under its own URL. A game
 * dealt to ``watch`` the server's winning line on is kept, but never counted in the statistics.
 */
export async function dealGame(request, { watch = false, replace = false } = {}) {
  let serverCommitment = null;
  if (request.clientSeed) {
    // The server commits to its part before it sees ours: then neither side chose the deal.
    const prepared = await api.prepareGame();
    request.preparedId = prepared.preparedId;
    serverCommitment = prepared.serverSeedCommitment;
  }
  const signedIn = store.identity();
  const response = await api.newGame(request, signedIn ? signedIn.token : null);
  const g = response.game;
  // A daily deal's ranked game dealt before answers again, under a new key (docs/competition.md): it is no new
  // game, and its first layout is the one this browser kept then, if it did (on another device: unknown).
  const known = store.game(g.gameId);
  const resumed = Boolean(known) || Number(g.version) > 1;
  const firstView = resumed ? (known && known.firstView) || null : g.view;
  const record = { token: response.gameToken, variant: g.variant, firstView, serverCommitment, dealt: Date.now() };
  store.keepGame(g.gameId, watch ? { ...record, watched: true } : record);
  if (!resumed && store.counts(g)) store.countDeal(g);
  // A deal from a link takes the link's place in the history: Back leaves it, never to a table it does not show.
  if (replace) history.replaceState({ game: g.gameId }, '', gameUrl(g.gameId));
  else history.pushState({ game: g.gameId }, '', gameUrl(g.gameId));
  await start(g, response.gameToken);
}

/** "Play this deal again": a new game from the revealed seed of the game just over (marked as a replay). */
export async function playAgain() {
  const g = state.game;
  if (!g || !g.seed || !isOver()) return;
  try {
    await dealGame({ variant: g.variant, options: g.options || {}, allowUndo: Boolean(g.allowUndo), replaySeed: g.seed });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    say(explain(err), 'refused');
  }
}

export async function start(game, token) {
  for (const id of ['fair-status', 'deal-status']) delete $(id).dataset.ok;
  delete $('cert-status').dataset.valid;
  delete document.body.dataset.revealed;
  delete document.body.dataset.finished;
  state.game = game;
  state.token = token;
  state.selection = null;
  state.batch = [];
  state.legal = [];
  state.revealed = null;
  state.redo = [];
  state.watching = null; // a line being watched stops: this is another game (the back button, a link)
  $('watch').hidden = true;
  document.querySelector('.actions').hidden = false;
  $('result').hidden = true;
  say('');
  loadClock(game);
  render({ animate: false });
  await afterChange();
}

/**
 * Restart this deal: the game is resigned and its deal, its seed now revealed, dealt again from the start
 * (NewGame with ``replaySeed``, the same options and undo setting). The statistics count a restart, not a loss.
 */
export async function restart() {
  if (!idle()) return;
  if (!window.confirm(t('msg.restart-confirm'))) return;
  const old = state.game;
  state.busy = true;
  try {
    const response = await api.resign(old.gameId, state.token, old.version);
    const g = response.game;
    if (store.counts(g)) store.countRestart(g);
    state.busy = false;
    await dealGame({ variant: g.variant, options: g.options || {}, allowUndo: Boolean(g.allowUndo), replaySeed: g.seed });
    say(t('msg.restarted'), 'info');
  } catch (err) {
    state.busy = false;
    await refused(err);
  } finally {
    state.busy = false;
  }
}
