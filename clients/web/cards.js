// Cards as DOM elements: rank and suit in both corners and a large pip, drawn with CSS only.

import { lang } from './i18n.js';

export const SUITS = { C: '♣', D: '♦', H: '♥', S: '♠' };
const SUIT_NAMES = { C: 'clubs', D: 'diamonds', H: 'hearts', S: 'spades' };
const SUIT_NAMES_RU = { C: 'треф', D: 'бубен', H: 'червей', S: 'пик' };
const RANK_TEXT = { T: '10' };
const RANK_NAMES = {
  A: 'ace', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight', 9: 'nine',
  T: 'ten', J: 'jack', Q: 'queen', K: 'king',
};
const RANK_NAMES_RU = {
  A: 'туз', 2: 'двойка', 3: 'тройка', 4: 'четвёрка', 5: 'пятёрка', 6: 'шестёрка', 7: 'семёрка', 8: 'восьмёрка',
  9: 'девятка', T: 'десятка', J: 'валет', Q: 'дама', K: 'король',
};

export const isCard = (text) => typeof text === 'string' && /^[A2-9TJQK][CDHS]$/.test(text);
export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];
export const isRed = (card) => card[1] === 'D' || card[1] === 'H';

/** "TH" -> "ten of hearts" (for screen readers and titles). */
export function cardName(card) {
  if (lang() === 'ru') return `${RANK_NAMES_RU[card[0]]} ${SUIT_NAMES_RU[card[1]]}`;
  return `${RANK_NAMES[card[0]]} of ${SUIT_NAMES[card[1]]}`;
}

/** "TH" -> "10♥" (for messages). */
export function cardLabel(card) {
  return `${RANK_TEXT[card[0]] || card[0]}${SUITS[card[1]]}`;
}

/** Put card names in a server message as the table shows them: "TH" -> "10♥", "4C" -> "4♣", "10D" -> "10♦". */
export function prettyCards(text) {
  return String(text).replace(/\b(10|[A2-9TJQK])([CDHS])\b/g, (m, r, s) => cardLabel(`${r === '10' ? 'T' : r}${s}`));
}

const template = () => document.getElementById('tpl-card');

/** A face-up card. */
export function faceUp(card) {
  const el = template().content.firstElementChild.cloneNode(true);
  el.classList.add(isRed(card) ? 'red' : 'black', `rank-${card[0]}`);
  el.dataset.card = card;
  // The face is a picture: its marks are drawn by CSS from data-t, not text nodes, so that a pile's spoken
  // name ("column 3: 9 cards, top card ten of hearts") is all there is to read.
  // Four elements a card (a table holds up to 104): the corners draw rank and suit as ::before and ::after.
  const rank = RANK_TEXT[card[0]] || card[0];
  for (const corner of el.querySelectorAll('.corner')) {
    corner.dataset.r = rank;
    corner.dataset.s = SUITS[card[1]];
  }
  el.querySelector('.pip').dataset.t = 'JQK'.includes(card[0]) ? card[0] + SUITS[card[1]] : SUITS[card[1]];
  // No name of its own: the pile (a button) names its cards, and a button's content is not read one by one.
  return el;
}

/** A face-down card: its face is unknown to the page (it never received it). */
export function faceDown() {
  const el = document.createElement('div');
  el.className = 'card back';
  return el;
}

/** An empty place on the table. */
export function emptySlot(label = '') {
  const el = document.createElement('div');
  el.className = 'slot';
  if (label) el.dataset.label = label;
  return el;
}
