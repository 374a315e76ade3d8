// Plain-language explanations of refusals, by the API's stable reason code (docs/api.md), in English and
// Russian. The server's own message (which names the cards) follows the explanation, with its cards written as
// the table shows them (10♦, not TD).
//
// The one place where the page reads a reason code: ``reasonCode`` folds the spellings the server uses today
// onto one (a refused move says DOES_NOT_FIT, a verdict does-not-fit; undo switched off is UNDO_FORBIDDEN).

import { prettyCards } from './cards.js';
import { lang } from './i18n.js';

/** Other spellings of the same reason, folded onto the one the page uses. */
const ALIASES = { UNDO_DISABLED: 'UNDO_FORBIDDEN' };

/** "does-not-fit", "DOES_NOT_FIT", "Does Not Fit" -> "DOES_NOT_FIT"; aliases folded. */
export function reasonCode(reason) {
  const code = String(reason || '').trim().toUpperCase().replace(/[-\s]+/g, '_');
  return ALIASES[code] || code;
}

const REASONS = {
  SAME_PILE: ['A card cannot move onto the pile it is already on.', 'Карта не может перейти на ту же стопку.'],
  EMPTY_PILE: ['There is no card there to move.', 'Там нет карты.'],
  NOT_FREE_CARD: [
    'Only the last card of a column can move — or a run of cards that ends with it.',
    'Ходит только последняя карта столбца — или последовательность, которая ею заканчивается.',
  ],
  DOES_NOT_FIT: ['That card does not fit there.', 'Туда эта карта не подходит.'],
  WRONG_COLOUR: [
    'Build down in alternating colours: a red card on a black one, a black card on a red one, one rank lower.',
    'Кладите по убыванию с чередованием цвета: красную на чёрную, чёрную на красную, на одно достоинство ниже.',
  ],
  WRONG_SUIT: ['That pile is built in one suit.', 'Эта стопка собирается в одной масти.'],
  RESERVE_FULL: ['Every reserve cell is already taken.', 'Все ячейки резерва заняты.'],
  CELL_OCCUPIED: ['That cell already holds a card; a cell takes one card.', 'В ячейке уже есть карта; ячейка вмещает одну.'],
  DEAD_COLUMN: ['In this game a column that has been emptied stays empty.', 'В этой игре опустевший столбец остаётся пустым.'],
  KING_CANNOT_MOVE: ['Kings never move in this game.', 'В этой игре короли не ходят.'],
  NOT_A_KING: ['Only a king can go to the king row.', 'В ряд королей можно положить только короля.'],
  KING_ROW_FULL: ['The king row is full.', 'Ряд королей заполнен.'],
  SEQUENCE_MOVES_OFF: ['In this game only one card moves at a time.', 'В этой игре карты переносятся по одной.'],
  STOCK_EMPTY: ['The stock is empty.', 'Колода пуста.'],
  STOCK_NOT_EMPTY: [
    'The waste can be turned over only when the stock is empty.',
    'Сброс можно перевернуть, только когда колода пуста.',
  ],
  NO_REDEALS_LEFT: ['There are no redeals left.', 'Пересдач больше нет.'],
  HIDDEN_CARD: ['That card is face down.', 'Эта карта лежит рубашкой вверх.'],
  GAME_OVER: ['The game is over.', 'Игра окончена.'],
  GAME_EXPIRED: ['The game expired: nobody played it for too long.', 'Игра истекла: в неё слишком долго не играли.'],
  NO_SUCH_PILE: ['There is no such pile in this game.', 'В этой игре нет такой стопки.'],
  NOT_IN_THIS_GAME: ['That move does not exist in this game.', 'В этой игре нет такого хода.'],
  BAD_NOTATION: ['That is not a move.', 'Это не ход.'],
  NOTHING_TO_UNDO: ['There is nothing to undo.', 'Отменять нечего.'],
  UNDO_FORBIDDEN: ['Undo is switched off for this game.', 'В этой игре отмена ходов выключена.'],
  STALE_VERSION: [
    'The game changed in another window; this is where it stands now.',
    'Игра изменилась в другом окне; вот как она выглядит сейчас.',
  ],
  GAME_NOT_FOUND: ['This game no longer exists.', 'Этой игры больше нет.'],
  WRONG_TOKEN: ['This page does not hold the key to that game.', 'У этой страницы нет ключа к этой игре.'],
  MISSING_TOKEN: ['This page does not hold the key to that game.', 'У этой страницы нет ключа к этой игре.'],
  STORE_UNAVAILABLE: [
    'The server cannot reach its storage right now; try again in a moment.',
    'Сервер сейчас не может связаться с хранилищем; попробуйте чуть позже.',
  ],
  UNKNOWN_VARIANT: ['The server does not know that game.', 'Сервер не знает такой игры.'],
  BAD_OPTION: ['That option value is not allowed.', 'Такое значение параметра не допускается.'],
  SIGNING_UNAVAILABLE: ['This server signs no certificates.', 'Этот сервер не подписывает сертификаты.'],
  WINNABLE_POOL_EMPTY: [
    'No proven winnable deal of this game is ready yet. Try again in a minute, or switch “Winnable deals only” off.',
    'Проверенного выигрышного расклада этой игры пока нет. Попробуйте через минуту или выключите «Только выигрышные расклады».',
  ],
  BAD_DEAL_NUMBER: ['A deal number is a whole number from 1 to 4294967295.', 'Номер расклада — целое число от 1 до 4294967295.'],
  BAD_REPLAY_SEED: ['That seed cannot be dealt again.', 'Этот расклад нельзя сдать ещё раз.'],
  DEAL_FIELDS_CONFLICT: [
    'Choose one way to deal: a deal number, your own seed, a deal ticket or a replay.',
    'Выберите один способ раздачи: номер расклада, своё зерно, билет расклада или повтор.',
  ],
  UNREACHABLE: [
    'The server cannot be reached. Check the connection and try again.',
    'Сервер недоступен. Проверьте соединение и попробуйте снова.',
  ],
};

/** The general explanation of ``reason`` (any spelling) in the page's language, or ''. */
export function reasonText(reason) {
  const entry = REASONS[reasonCode(reason)];
  return entry ? entry[lang() === 'ru' ? 1 : 0] : '';
}

/** A sentence for people: the explanation by reason, then what the server said about the cards. */
export function explain(error) {
  const general = reasonText(error.reason);
  const specific = prettyCards(error.message || '');
  if (!general) return specific || (lang() === 'ru' ? 'Не получилось.' : 'That did not work.');
  if (!specific || specific.toLowerCase() === general.toLowerCase()) return general;
  return `${general} (${specific})`;
}
