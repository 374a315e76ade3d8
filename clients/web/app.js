// The web client's entry point: it wires the page's buttons and the table's input to the controller, opens the
// game or variant the URL names, and marks the page ready. The controller's parts: state.js (what the page
// holds), draw.js (the table and header), selection.js (the selection and where it may go), clicks.js (what a
// click means), play.js (moves to the server and back), dealing.js (dealing and starting a game), hint.js (the Hint button), watch.js (the server's winning line, played on a replay), result.js (the
// end of a game, its deal and certificate), new-game.js (the New game dialog and the links that deal), menu.js
// (statistics, rules), competition.js (daily deals and the leaderboards, checked in the browser). The page only ever holds what the API sends a player: the view (hidden cards as
// counts), the legal moves, and the seed once the game is over.
//
// URLs: /?variant=ID&option=value deals a new game of that game; /?game=ID reopens a game whose key (token)
// this browser keeps, or the signed-in player's own game; /?watch=ID follows a game its player opened to
// spectators, live (spectate.js); /?lang=ru picks the language; /#id_token=JWT signs a player in with a token
// their front end's OpenID Connect provider issued (players.js).

import { api, ApiError } from './api.js';
import { render, tick } from './draw.js';
import { detect, lang, setLang, t, translate } from './i18n.js';
import { attachInput } from './input.js';
import { openRules, openStats } from './menu.js';
import { explain } from './messages.js';
import { deal, fillOptions, fillVariants, openNewGame, requestFromUrl, showLink } from './new-game.js';
import { hint } from './hint.js';
import { activate, sendHome, stretch } from './clicks.js';
import { dealGame, playAgain, restart, start } from './dealing.js';
import { autoPlay, redo, reload, resign, undo, waitForServer } from './play.js';
import { syncClock } from './clock.js';
import { openCertificates, showResult } from './result.js';
import { deselect, select } from './selection.js';
import { $, closeMenu, gameUrl, isColumn, isOver, pileCards, say, state } from './state.js';
import * as store from './storage.js';
import { fit } from './fit.js';
import { attachWatch, watchLine } from './watch.js';
import { adoptFragment, askErase, copyKey, erase, moreGames, openMyGames, openPlayer, refreshPlayer, rename, showPlayer, signInGuest, signInWithKey, signOut } from './players.js';
import { spectate } from './spectate.js';
import { attachBoard, relabelBoard } from './competition.js';

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
  showPlayer();
  relabelBoard();
  if (state.game) {
    render({ animate: false });
    if (!$('result').hidden) showResult();
  }
}

// ------------------------------------------------------------------------------------------------ opening a page

/**
 * Open game ``id`` with the key this browser keeps for it, else (a signed-in player's own game, dealt on any
 * device) with the player's identity; false when there is neither or the server lost it.
 */
async function reopen(id) {
  const record = store.game(id);
  const signedIn = store.identity();
  const token = (record && record.token) || (signedIn && signedIn.token);
  if (!token) return false;
  try {
    const response = await api.getGame(id, token);
    await start(response.game, token);
    // A finished game reopens on its table (its result a button away); an expired one says what happened.
    if (isOver() && state.game.status !== 'GAME_STATUS_EXPIRED') $('result').hidden = true;
    return true;
  } catch (err) {
    if (record && err instanceof ApiError && ['GAME_NOT_FOUND', 'WRONG_TOKEN', 'GAME_EXPIRED'].includes(err.reason)) store.forgetGame(id);
    return false;
  }
}


async function openFromUrl() {
  const params = new URLSearchParams(location.search);
  if (params.get('watch')) {
    spectate(params.get('watch'));
    return;
  }
  if (params.get('variant')) {
    const { request, error } = requestFromUrl(params);
    if (request) {
      $('variant').value = request.variant;
      store.keepVariant(request.variant);
      try {
        await dealGame(request, { replace: true });
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
  document.body.dataset.cards = store.setting('cards') === 'large' ? 'large' : 'fit';
  $('opt-big').checked = document.body.dataset.cards === 'large';
  $('opt-autodrop').checked = store.setting('autodrop') === 'on';
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
    redo,
    hint,
    autoPlay,
    pileCards,
    isColumn,
    selection: () => state.selection,
    playable: () => !isOver() && !state.busy && !state.watching && !state.spectating,
  });
  window.addEventListener('resize', () => {
    if (state.game) fit(table);
  });
  // The table fits the room below the bar: when the bar changes height (a longer title in Russian, the watch
  // controls), the table is fitted again. The message line keeps its height (a longer message lies over the
  // table's top edge until the next one, or a tap).
  const heights = new Map();
  const refit = new ResizeObserver((entries) => {
    let changed = false;
    for (const e of entries) {
      const h = Math.round(e.target.getBoundingClientRect().height);
      if (heights.has(e.target) && heights.get(e.target) !== h) changed = true;
      heights.set(e.target, h);
    }
    if (changed && state.game) fit(table);
  });
  refit.observe(document.querySelector('header.bar'));
  $('message').addEventListener('click', () => say(''));
  window.addEventListener('popstate', () => {
    const id = new URLSearchParams(location.search).get('game');
    if (id && (!state.game || id !== state.game.gameId)) reopen(id);
  });
  setInterval(() => {
    if (state.game && !isOver()) tick();
  }, 1000);
  $('btn-new').addEventListener('click', openNewGame);
  $('btn-undo').addEventListener('click', undo);
  $('btn-redo').addEventListener('click', redo);
  $('btn-restart').addEventListener('click', () => {
    closeMenu();
    restart();
  });
  $('btn-result').addEventListener('click', () => showResult());
  document.addEventListener('visibilitychange', syncClock);
  document.addEventListener('patience:expiry', async (e) => {
    if (!state.game || state.game.gameId !== e.detail || isOver() || state.busy) return;
    try {
      await reload();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.reason === 'UNREACHABLE') waitForServer();
    }
  });
  $('btn-resign').addEventListener('click', resign);
  $('btn-hint').addEventListener('click', hint);
  $('btn-auto').addEventListener('click', autoPlay);
  $('btn-rules').addEventListener('click', openRules);
  $('btn-stats').addEventListener('click', openStats);
  $('btn-cert').addEventListener('click', openCertificates);
  $('btn-lang').addEventListener('click', switchLanguage);
  $('btn-player').addEventListener('click', openPlayer);
  window.addEventListener('hashchange', adoptFragment); // a sign-in handed over to the page already open
  $('btn-my-games').addEventListener('click', openMyGames);
  $('new-sign-in').addEventListener('click', openPlayer);
  $('new-my-games').addEventListener('click', () => {
    $('new-game').close();
    openMyGames();
  });
  $('player-my-games').addEventListener('click', openMyGames);
  $('my-games-more').addEventListener('click', moreGames);
  $('guest-form').addEventListener('submit', signInGuest);
  $('key-form').addEventListener('submit', signInWithKey);
  $('rename-form').addEventListener('submit', rename);
  $('copy-key').addEventListener('click', copyKey);
  $('sign-out').addEventListener('click', signOut);
  $('erase').addEventListener('click', askErase);
  $('erase-no').addEventListener('click', () => {
    $('erase-confirm').hidden = true;
  });
  $('erase-yes').addEventListener('click', erase);
  showPlayer();
  $('opt-big').addEventListener('change', () => {
    document.body.dataset.cards = $('opt-big').checked ? 'large' : 'fit';
    store.keepSetting('cards', document.body.dataset.cards);
    if (state.game) fit(table);
  });
  $('opt-autodrop').addEventListener('change', () => store.keepSetting('autodrop', $('opt-autodrop').checked ? 'on' : 'off'));
  $('variant').addEventListener('change', () => fillOptions());
  for (const id of ['winnable', 'deal-number', 'daily']) $(id).addEventListener('input', showLink);
  $('new-game-form').addEventListener('submit', deal);
  $('new-cancel').addEventListener('click', () => $('new-game').close());
  $('result-close').addEventListener('click', () => {
    $('result').hidden = true;
  });
  $('result-new').addEventListener('click', openNewGame);
  $('result-again').addEventListener('click', playAgain);
  $('result-watch').addEventListener('click', watchLine);
  attachWatch();
  attachBoard();

  try {
    const catalogue = await api.listVariants();
    state.variants = catalogue.variants || [];
    state.byId = new Map(state.variants.map((v) => [v.id, v]));
  } catch (err) {
    say(err instanceof ApiError ? explain(err) : String(err), 'refused');
    return;
  }
  fillVariants();
  // A sign-in handed over in the address (/#id_token=...) first: the game the URL names may be the player's.
  await adoptFragment();
  refreshPlayer();
  await openFromUrl();
  // From navigation to a table that can be played (drawn, its legal moves known): bench/web_load.py reads it.
  performance.mark('patience-ready');
  document.body.dataset.ready = 'true';
}

main();
