// The More menu's panels: statistics per game (kept in the browser) and the rules of the game being played.

import { duration, lang, t } from './i18n.js';
import { renderGuide } from './guide.js';
import { renderRules } from './rules.js';
import { $, closeMenu, state, variant, variantName } from './state.js';
import * as store from './storage.js';

/** One kind of deal's table: a row per game played, its played, won, streaks and bests. */
function statsTable(kind, all, ids) {
  const table = document.createElement('table');
  table.className = 'stats';
  table.dataset.kind = kind;
  table.createCaption().textContent = t(`stats.heading.${kind}`);
  const head = table.createTHead().insertRow();
  for (const k of ['stats.game', 'stats.played', 'stats.won', 'stats.streak', 'stats.best-streak', 'stats.best-time', 'stats.best-moves', 'stats.restarts']) {
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
    for (const value of [s.played, s.won, s.streak, s.bestStreak, s.bestTime === null ? '–' : duration(s.bestTime), s.bestMoves ?? '–', s.restarts || 0]) {
      row.insertCell().textContent = String(value);
    }
  }
  return table;
}

/** The statistics panel: a table for each kind of deal played (fresh, winnable, numbered, replays), kept apart. */
export function openStats() {
  closeMenu();
  const body = $('stats-body');
  body.replaceChildren();
  for (const kind of store.KINDS) {
    const all = store.stats(kind);
    const ids = state.variants.map((v) => v.id).filter((id) => all[id] && (all[id].played || all[id].restarts));
    if (ids.length) body.append(statsTable(kind, all, ids));
  }
  if (!body.children.length) {
    const p = document.createElement('p');
    p.textContent = t('stats.none');
    body.append(p);
  }
  $('stats').showModal();
}

export function openRules() {
  closeMenu();
  const v = variant() || state.byId.get($('variant').value) || state.variants[0];
  // The game's guide first (one phone screen); the full rules one click below, folded.
  renderGuide($('guide'), v, lang(), variantName(v));
  $('rules-title').textContent = `${t('rules.title')}: ${variantName(v)}`;
  $('rules-full').open = false;
  renderRules($('rules-body'), v, lang());
  $('rules').showModal();
}
