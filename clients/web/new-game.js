// The New game dialog and the links that deal: a game and its options, undo, winnable deals only (kept in the
// browser), today's daily deal, a public deal's number, the player's own seed or a deal ticket;
// /?variant=ID&option=value (with &deal=N, &daily=true, &winnable=true) read into the same request.

import { ApiError } from './api.js';
import { lang, t } from './i18n.js';
import { explain } from './messages.js';
import { dealGame } from './dealing.js';
import { summary } from './rules.js';
import { $, closeMenu, state } from './state.js';
import * as store from './storage.js';

const RESERVED_PARAMS = new Set(['variant', 'game', 'lang', 'undo', 'deal', 'winnable', 'replay', 'daily']);
const MAX_DEAL_NUMBER = 2 ** 32 - 1;

/** A public deal's number from text: 1 .. 2^32-1, or null when it is not one. */
function dealNumber(text) {
  if (!/^[0-9]{1,10}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_DEAL_NUMBER ? n : null;
}

export function fillVariants() {
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

export function fillOptions(values = {}) {
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

/**
 * The link that deals this game with these options: /?variant=ID&option=value (defaults left out), with
 * &deal=N for a public deal or &winnable=true.
 */
export function showLink() {
  const v = state.byId.get($('variant').value);
  if (!v) return;
  const params = new URLSearchParams({ variant: v.id });
  const options = chosenOptions();
  for (const opt of v.options || []) if (options[opt.name] !== opt.defaultValue) params.set(opt.name, options[opt.name]);
  const number = dealNumber($('deal-number').value.trim());
  if (number !== null) params.set('deal', String(number));
  else if ($('daily').checked) params.set('daily', 'true');
  else if ($('winnable').checked) params.set('winnable', 'true');
  const link = $('variant-link');
  link.href = `/?${params}`;
  link.textContent = `${location.origin}/?${params}`;
}

function utf8Base64(text) {
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes));
}

export async function deal(e) {
  e.preventDefault();
  const request = { allowUndo: $('allow-undo').checked };
  if ($('watchable').checked) request.watchable = true;
  const ticket = $('deal-ticket').value.trim();
  const number = $('deal-number').value.trim();
  store.keepWinnable($('winnable').checked);
  if (ticket) request.dealTicket = ticket;
  else {
    request.variant = $('variant').value;
    request.options = chosenOptions();
    const seed = $('client-seed').value;
    // One way of choosing the deal: a public deal's number, the player's seed, today's daily deal, or a winnable
    // deal, or chance.
    if (number) {
      const n = dealNumber(number);
      if (n === null) {
        $('variant-summary').textContent = t('msg.bad-deal-number');
        return;
      }
      request.dealNumber = n;
    } else if (seed) {
      request.clientSeed = utf8Base64(seed);
    } else if ($('daily').checked) {
      request.daily = true;
    } else if ($('winnable').checked) {
      request.winnable = true;
    }
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


export function openNewGame() {
  $('result').hidden = true;
  closeMenu();
  $('winnable').checked = store.winnable();
  showLink();
  const dialog = $('new-game');
  if (!dialog.open) dialog.showModal();
}

/** /?variant=ID&option=value: the request that deals it, or an explanation of what is wrong with the link. */
export function requestFromUrl(params) {
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
  const request = { variant: id, options, allowUndo: params.get('undo') !== 'false' };
  if (params.has('replay')) {
    // A shared finished deal: its revealed seed (as the API wrote it), dealt again as a replay.
    const seed = params.get('replay');
    if (!/^[A-Za-z0-9+/=_-]{20,100}$/.test(seed)) return { error: t('msg.bad-replay') };
    request.replaySeed = seed;
  } else if (params.has('deal')) {
    const n = dealNumber(params.get('deal'));
    if (n === null) return { error: t('msg.bad-deal-number') };
    request.dealNumber = n;
  } else if (params.get('daily') === 'true') {
    request.daily = true;
  } else if (params.get('winnable') === 'true') {
    request.winnable = true;
  }
  return { request };
}
