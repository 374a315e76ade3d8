// Watching another player's game live, read-only: /?watch=ID opens the game's event stream
// (GET /v1/games/ID:watch, Server-Sent Events) without any key, which the server allows for a game its player dealt
// watchable. The table is drawn again after every change, wherever the player plays it; the page holds only what
// the stream sends, the player's view. EventSource reconnects by itself after a dropped connection or the end of
// the server's stream lifetime (sending the last version it saw); after the game's last state the server ends the
// stream and answers the reconnection 204, which stops it.

import { render } from './draw.js';
import { t } from './i18n.js';
import { $, OVER, say, state } from './state.js';

export function spectate(id) {
  state.spectating = true;
  state.token = null;
  state.legal = [];
  state.selection = null;
  document.querySelector('.actions').hidden = true;
  document.body.dataset.spectating = 'true';
  let seen = false;
  const events = new EventSource(`/v1/games/${encodeURIComponent(id)}:watch`);
  events.onmessage = (e) => {
    const { game } = JSON.parse(e.data);
    const first = !seen;
    seen = true;
    state.game = game;
    render({ animate: !first });
    say(OVER.has(game.status) ? t('spectate.over') : t('spectate.watching'));
    if (OVER.has(game.status)) events.close();
  };
  events.onerror = () => {
    if (events.readyState !== EventSource.CLOSED) {
      if (seen) say(t('spectate.lost'));
      return;
    }
    // Closed for good: refused before any event (a private game, or none), or the game ended.
    say(seen ? t('spectate.over') : t('spectate.refused'), seen ? 'info' : 'refused');
  };
  return events;
}
