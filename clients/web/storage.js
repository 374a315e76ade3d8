// What the browser keeps between visits, in localStorage: the key (token) of each game, so that its URL
// reopens it; the layout shown at the deal and the server's prepared commitment, to check the deal once the
// seed is revealed; a won game's certificate; and the player's statistics per game. Nothing here is secret to
// the player, and the server never depends on it.

const GAMES = 'patience.games';
const LAST = 'patience.last';
const STATS = 'patience.stats';
const VARIANT = 'patience.variant';
const WINNABLE = 'patience.winnable';
const IDENTITY = 'patience.identity';
const KEEP = 60; // games kept; the oldest without a certificate go first

function read(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key) || 'null');
    return value ?? fallback;
  } catch (err) {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (err) {
    // Storage full or switched off: the game goes on, only the memory of it is lost.
  }
}

/** Every kept game: {id: {token, variant, dealt, firstView?, serverCommitment?, certificate?, counted?}}. */
export function games() {
  const all = read(GAMES, {});
  return all && typeof all === 'object' ? all : {};
}

export function game(id) {
  return games()[id] || null;
}

/** Merge ``fields`` into game ``id``'s record and make it the last game. */
export function keepGame(id, fields) {
  const all = games();
  all[id] = { ...(all[id] || { dealt: Date.now() }), ...fields };
  const ids = Object.keys(all);
  if (ids.length > KEEP) {
    const order = ids.sort((a, b) => Boolean(all[a].certificate) - Boolean(all[b].certificate) || all[a].dealt - all[b].dealt);
    for (const old of order.slice(0, ids.length - KEEP)) if (old !== id) delete all[old];
  }
  write(GAMES, all);
  localStorage.setItem(LAST, id);
  return all[id];
}

export function forgetGame(id) {
  const all = games();
  delete all[id];
  write(GAMES, all);
  if (localStorage.getItem(LAST) === id) localStorage.removeItem(LAST);
}

export function lastGameId() {
  return localStorage.getItem(LAST);
}

export function lastVariant() {
  return localStorage.getItem(VARIANT);
}

export function keepVariant(id) {
  localStorage.setItem(VARIANT, id);
}

/** The "Winnable deals only" switch of the New game dialog. */
export function winnable() {
  return localStorage.getItem(WINNABLE) === 'true';
}

export function keepWinnable(on) {
  localStorage.setItem(WINNABLE, String(Boolean(on)));
}

// ------------------------------------------------------------------------------------------------ the player
//
// A signed-in player's identity token (a guest's from CreateGuest, or a provider's handed to the page) and the
// player it names, as last read from the server. The token is the player's key to their games on any device:
// kept here only, sent only to this page's own server, dropped by Sign out.

/** {token, player: {id, displayName, kind}} of the signed-in player, or null. */
export function identity() {
  const value = read(IDENTITY, null);
  return value && typeof value.token === 'string' && value.token ? value : null;
}

export function keepIdentity(token, player) {
  write(IDENTITY, { token, player });
}

export function forgetIdentity() {
  try {
    localStorage.removeItem(IDENTITY);
  } catch (err) {
    // Storage switched off: nothing was kept.
  }
}

/** Won games that kept a certificate, newest first. */
export function certificates() {
  return Object.entries(games())
    .filter(([, g]) => g.certificate)
    .map(([id, g]) => ({ id, ...g }))
    .sort((a, b) => (b.finished || b.dealt) - (a.finished || a.dealt));
}

// ------------------------------------------------------------------------------------------------ statistics
//
// Kept apart by how the deal was chosen: fresh deals (dealt at random, with or without the player's seed, or
// from a ticket), winnable deals, numbered public deals and replays each have their own played, won, streaks and
// bests per game. A replayed win, a deal looked up by its number or a deal proven winnable never lifts the
// streak or the bests of fresh deals, and an unfinished replay never breaks it. A game dealt only to watch the
// server's winning line is not counted at all.

/** The kinds of deal, in the order the statistics panel shows them. */
export const KINDS = ['fresh', 'winnable', 'public', 'replay'];
const STATS_KEY = { fresh: STATS, winnable: `${STATS}.winnable`, public: `${STATS}.public`, replay: `${STATS}.replay` };
const EMPTY = { played: 0, won: 0, streak: 0, bestStreak: 0, bestTime: null, bestMoves: null, open: null, restarts: 0 };

/** The kind a game's deal counts under (Game.dealt: random, ticket, winnable, public, replay). */
export function kindOf(g) {
  return KINDS.includes(g.dealt) ? g.dealt : 'fresh';
}

/** The statistics of one kind of deal: {variant: {played, won, streak, bestStreak, bestTime, bestMoves}}. */
export function stats(kind = 'fresh') {
  const all = read(STATS_KEY[kind] || STATS, {});
  return all && typeof all === 'object' ? all : {};
}

function update(kind, variant, change) {
  const all = stats(kind);
  const entry = { ...EMPTY, ...(all[variant] || {}) };
  change(entry);
  all[variant] = entry;
  write(STATS_KEY[kind], all);
  return entry;
}

/** Whether a game counts in the statistics: every game but one dealt to watch the server's line on. */
export function counts(g) {
  const record = game(g.gameId);
  return !(record && record.watched);
}

/** A new game was dealt: one more played of its kind; an unfinished previous game of that kind breaks its streak. */
export function countDeal(g) {
  const entry = update(kindOf(g), g.variant, (s) => {
    if (s.open && s.open !== g.gameId) s.streak = 0;
    s.played += 1;
    s.open = g.gameId;
  });
  keepGame(g.gameId, { played: true });
  return entry;
}

/**
 * Game ``g`` was restarted (resigned to be dealt again from its seed): a restart, not a loss. It leaves the games
 * played (its replay is counted among the replays) and never breaks a streak.
 */
export function countRestart(g) {
  const record = game(g.gameId);
  if (record && record.counted) return;
  update(kindOf(g), g.variant, (s) => {
    if (s.open === g.gameId) s.open = null;
    if (record && record.played) s.played = Math.max(0, s.played - 1);
    s.restarts = (s.restarts || 0) + 1;
  });
  keepGame(g.gameId, { counted: true, restarted: true });
}

/**
 * Game ``g`` ended (once per game: the record remembers it was counted). Returns its kind's entry and whether
 * the win set a best time or a best move count.
 */
export function countEnd(g, { won, seconds, moves }) {
  const kind = kindOf(g);
  const record = game(g.gameId);
  if (record && record.counted) return { entry: { ...EMPTY, ...(stats(kind)[g.variant] || {}) }, best: false };
  let best = false;
  const entry = update(kind, g.variant, (s) => {
    if (s.open === g.gameId) s.open = null;
    if (!(record && record.played)) s.played += 1; // a game dealt elsewhere and opened here by its URL
    if (!won) {
      s.streak = 0;
      return;
    }
    s.won += 1;
    s.streak += 1;
    s.bestStreak = Math.max(s.bestStreak, s.streak);
    if (s.bestTime === null || seconds < s.bestTime) {
      s.bestTime = seconds;
      best = true;
    }
    if (s.bestMoves === null || moves < s.bestMoves) {
      s.bestMoves = moves;
      best = true;
    }
  });
  if (record) keepGame(g.gameId, { counted: true });
  return { entry, best };
}

/** A player's setting (``cards``: fit or large; ``autodrop``: on or off), kept as patience.NAME; null when unset. */
export function setting(name) {
  try {
    return localStorage.getItem(`patience.${name}`);
  } catch (err) {
    return null;
  }
}

export function keepSetting(name, value) {
  try {
    localStorage.setItem(`patience.${name}`, String(value));
  } catch (err) {
    // No room: the setting lasts this visit only.
  }
}
