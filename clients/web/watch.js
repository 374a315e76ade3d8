// "Watch the winning line": after a game dealt as winnable ends, the server's winning line (Game.solution) is
// played on a replay of its revealed seed, one ApplyMove at a time, so the server checks every move and the
// replay ends won, with a certificate that says "replay". Play, pause, step and a speed; under
// prefers-reduced-motion the moves are drawn at once, one after another, without sliding. "Play on yourself"
// hands the table back at any point. The replay is kept like any game but never counted in the statistics.

import { api, ApiError } from './api.js';
import { render } from './draw.js';
import { t } from './i18n.js';
import { explain } from './messages.js';
import { quiet } from './motion.js';
import { dealGame } from './dealing.js';
import { afterChange, refused } from './play.js';
import { $, isOver, say, state } from './state.js';
import { fit } from './fit.js';

/** Milliseconds between two moves, by speed (a slide itself takes at most 320 ms). */
const SPEEDS = { slow: 1400, normal: 600, fast: 100 };

const delay = () => (quiet() ? 0 : SPEEDS[$('watch-speed').value] ?? SPEEDS.normal);

/** The controls replace the game's buttons in the bar while the line plays (the table keeps its size). */
function showBar(on) {
  $('watch').hidden = !on;
  $('watch').title = t('msg.watching');
  document.querySelector('.actions').hidden = on;
  if (state.game) fit($('table'));
}

/** The play/pause button, the progress line and the page's markers for the tests. */
function update(w) {
  const button = $('watch-play');
  button.textContent = t(w.playing ? 'watch.pause' : 'watch.play');
  button.setAttribute('aria-pressed', String(w.playing));
  $('watch-step').disabled = w.playing || w.next >= w.line.length;
  say(t('watch.progress', { n: w.next, total: w.line.length }), 'info');
  document.body.dataset.watched = String(w.next);
  document.body.dataset.watch = w.playing ? 'playing' : 'paused';
}

/** Apply the line's next move; false when the line cannot go on (refused, or the watch was left). */
async function step(w) {
  if (w.stepping || w.next >= w.line.length) return false;
  w.stepping = true;
  const { gameId, version } = state.game;
  const text = w.line[w.next];
  try {
    const response = await api.applyMove(gameId, state.token, version, text);
    if (!state.game || state.game.gameId !== gameId) return false;
    state.game = response.game;
    state.legal = [];
    w.next += 1;
    render();
  } catch (err) {
    if (state.watching === w) leave(w);
    await refused(err, text);
    return false;
  } finally {
    w.stepping = false;
  }
  if (state.watching !== w) return false;
  if (isOver() || w.next >= w.line.length) {
    await done(w);
    return false;
  }
  update(w);
  return true;
}

/** Play moves until paused, left or done. */
async function run(w) {
  if (w.running) return;
  w.running = true;
  document.body.dataset.watchRunning = 'true';
  try {
    while (state.watching === w && w.playing && (await step(w))) {
      const ms = delay();
      if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
    }
  } finally {
    w.running = false;
    document.body.dataset.watchRunning = 'false';
  }
  if (state.watching === w) update(w);
}

function leave(w) {
  w.playing = false;
  state.watching = null;
  showBar(false);
  delete document.body.dataset.watch;
}

/** The line is played out: the replay is won, and its result (and certificate) shown like any win. */
async function done(w) {
  leave(w);
  document.body.dataset.watch = 'done';
  await afterChange();
}

/** "Watch the winning line": deal the replay, then play the server's line on it. */
export async function watchLine() {
  const g = state.game;
  const line = g && isOver() && g.seed ? [...(g.solution || [])] : [];
  if (!line.length || state.busy) return;
  state.busy = true;
  try {
    const request = { variant: g.variant, options: g.options || {}, allowUndo: Boolean(g.allowUndo), replaySeed: g.seed };
    await dealGame(request, { watch: true });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    say(explain(err), 'refused');
    return;
  } finally {
    state.busy = false;
  }
  const w = { line, next: 0, playing: true, stepping: false, running: false };
  state.watching = w;
  showBar(true);
  update(w);
  await run(w);
}

/** Wire the watch controls (once, at start). */
export function attachWatch() {
  $('watch-play').addEventListener('click', () => {
    const w = state.watching;
    if (!w) return;
    w.playing = !w.playing;
    update(w);
    if (w.playing) run(w);
  });
  $('watch-step').addEventListener('click', async () => {
    const w = state.watching;
    if (!w || w.playing || w.running) return;
    if (await step(w)) update(w);
  });
  $('watch-stop').addEventListener('click', async () => {
    const w = state.watching;
    if (!w) return;
    leave(w);
    say(t('msg.watch-stopped'), 'info');
    while (w.stepping || w.running) await new Promise((resolve) => setTimeout(resolve, 20));
    await afterChange();
  });
}
