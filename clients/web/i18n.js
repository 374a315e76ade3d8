// The page's language and its words (words-en.js, words-ru.js). The language follows the browser
// (navigator.languages) until the player picks one; the choice is kept in the browser. Game names come from the
// server (nameEn, nameRu).

import { EN } from './words-en.js';
import { RU } from './words-ru.js';

const SAVED = 'patience.lang';
export const LANGUAGES = ['en', 'ru'];

export const STRINGS = { en: EN, ru: RU };

function fromBrowser() {
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

let current = 'en';

/** The language in use: the player's choice if any, else the browser's first language we speak. */
export function detect() {
  const fromUrl = new URLSearchParams(location.search).get('lang');
  const saved = localStorage.getItem(SAVED);
  current = LANGUAGES.includes(fromUrl) ? fromUrl : LANGUAGES.includes(saved) ? saved : fromBrowser();
  document.documentElement.lang = current;
  return current;
}

export function lang() {
  return current;
}

export function setLang(code) {
  if (!LANGUAGES.includes(code)) return;
  current = code;
  localStorage.setItem(SAVED, code);
  document.documentElement.lang = code;
}

/** Which plural form: English one|other; Russian one|few|many. */
function form(n, forms) {
  if (forms.length === 1) return forms[0];
  const k = Math.abs(Number(n)) || 0;
  if (current === 'ru' && forms.length >= 3) {
    if (k % 10 === 1 && k % 100 !== 11) return forms[0];
    if (k % 10 >= 2 && k % 10 <= 4 && (k % 100 < 10 || k % 100 >= 20)) return forms[1];
    return forms[2];
  }
  return k === 1 ? forms[0] : forms[forms.length - 1];
}

/**
 * The text for ``key`` with {names} filled in; a key with "a|b" forms picks one by the first number given, and
 * {name#w.word} writes the number with its word in the form the number takes (w.word's forms).
 */
export function t(key, vars = {}) {
  const text = STRINGS[current][key] ?? EN[key] ?? key;
  const n = vars.n ?? vars.moves ?? vars.count;
  const forms = text.split('|');
  const pick = key === 'result.won-text' ? forms[vars.undos ? 1 : 0] : form(n, forms);
  return pick.replace(/\{(\w+)(?:#([\w.-]+))?\}/g, (m, name, word) => {
    if (!(name in vars)) return m;
    return word ? counted(vars[name], word) : String(vars[name]);
  });
}

/** A number and its word in the right form: counted(223, 'w.move') is "223 moves", "223 хода". */
export function counted(n, word) {
  const forms = (STRINGS[current][word] ?? EN[word] ?? word).split('|');
  return `${n} ${form(n, forms)}`;
}

/** Fill every element marked data-i18n (text), data-i18n-label (aria-label) or data-i18n-title under ``root``. */
export function translate(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll('[data-i18n-title]')) node.title = t(node.dataset.i18nTitle);
}

/** A duration in seconds as m:ss or h:mm:ss. */
export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
