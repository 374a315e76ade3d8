// Plain-language explanations of refusals, by the API's stable reason code (docs/api.md). The server's own
// message (which names the cards) follows the explanation.

import { prettyCards } from './cards.js';

const REASONS = {
  SAME_PILE: 'A card cannot move onto the pile it is already on.',
  EMPTY_PILE: 'There is no card there to move.',
  NOT_FREE_CARD: 'Only the last card of a column can move — or a run of cards that ends with it.',
  DOES_NOT_FIT: 'That card does not fit there.',
  WRONG_COLOUR: 'Build down in alternating colours: a red card on a black one, a black card on a red one, one rank lower.',
  WRONG_SUIT: 'That pile is built in one suit.',
  RESERVE_FULL: 'Every reserve cell is already taken.',
  CELL_OCCUPIED: 'That cell already holds a card; a cell takes one card.',
  DEAD_COLUMN: 'In this game a column that has been emptied stays empty.',
  KING_CANNOT_MOVE: 'Kings never move in this game.',
  NOT_A_KING: 'Only a king can go to the king row.',
  KING_ROW_FULL: 'The king row is full.',
  SEQUENCE_MOVES_OFF: 'In this game only one card moves at a time.',
  STOCK_EMPTY: 'The stock is empty.',
  STOCK_NOT_EMPTY: 'The waste can be turned over only when the stock is empty.',
  NO_REDEALS_LEFT: 'There are no redeals left.',
  HIDDEN_CARD: 'That card is face down.',
  GAME_OVER: 'The game is over.',
  GAME_EXPIRED: 'The game expired: nobody played it for too long.',
  NO_SUCH_PILE: 'There is no such pile in this game.',
  NOT_IN_THIS_GAME: 'That move does not exist in this game.',
  BAD_NOTATION: 'That is not a move.',
  NOTHING_TO_UNDO: 'There is nothing to undo.',
  UNDO_DISABLED: 'Undo is switched off for this game.',
  STALE_VERSION: 'The game changed in another window; this is where it stands now.',
  GAME_NOT_FOUND: 'This game no longer exists.',
  WRONG_TOKEN: 'This page does not hold the key to that game.',
  MISSING_TOKEN: 'This page does not hold the key to that game.',
  STORE_UNAVAILABLE: 'The server cannot reach its storage right now; try again in a moment.',
  UNKNOWN_VARIANT: 'The server does not know that game.',
  BAD_OPTION: 'That option value is not allowed.',
};

/** A sentence for people: the explanation by reason, then what the server said about the cards. */
export function explain(error) {
  const general = REASONS[error.reason] || '';
  const specific = prettyCards(error.message || '');
  if (!general) return specific || 'That did not work.';
  if (!specific || specific.toLowerCase() === general.toLowerCase()) return general;
  return `${general} (${specific})`;
}
