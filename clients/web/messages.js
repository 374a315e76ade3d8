// Plain-language explanations of refusals, by the API's stable reason code (docs/api.md), in English and
// Russian. The server's own message (which names the cards) follows the explanation, with its cards written as
// the table shows them (10♦, not TD).
//
// Every reason code has one spelling, UPPER_SNAKE_CASE, on every path (a refused move's ErrorInfo, a verdict,
// VerifyCertificate, a deal ticket's `why`, this page's certificate check), and REASONS explains each one that
// the engine and the service define (tests/web/test_web_messages.py holds it to that). ``reasonCode`` is still
// the one place where the page reads a code: it folds the kebab-case spellings of older servers
// ("does-not-fit") and an old name of the page's (UNDO_DISABLED) onto today's.

import { prettyCards } from './cards.js';
import { lang, t } from './i18n.js';

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
  WINNABLE_NOT_COMBINABLE: [
    'A winnable deal is one the server has proven: it cannot be combined with your seed, a ticket or a deal number.',
    'Выигрышную раздачу выбирает сервер из проверенных: её нельзя сочетать со своим зерном, билетом или номером раздачи.',
  ],
  WINNABLE_SHARE_USED: [
    'You have dealt many winnable deals of this game lately: wait a little, or switch “Winnable deals only” off.',
    'Вы недавно сдали много выигрышных раздач этой игры: подождите немного или выключите «Только выигрышные раздачи».',
  ],
  WINNABLE_POOL_EMPTY: [
    'No proven winnable deal of this game is ready yet. Try again in a minute, or switch “Winnable deals only” off.',
    'Проверенной выигрышной раздачи этой игры пока нет. Попробуйте через минуту или выключите «Только выигрышные раздачи».',
  ],
  UNREACHABLE: [
    'The server cannot be reached. Check the connection and try again.',
    'Сервер недоступен. Проверьте соединение и попробуйте снова.',
  ],
  // The request itself (a client bug rather than a player's mistake).
  MISSING_GAME_ID: ['The request names no game.', 'В запросе не указана игра.'],
  MISSING_EXPECTED_VERSION: ['The request does not say which version of the game it expects.', 'В запросе не указана версия игры.'],
  MISSING_MOVE: ['The request holds no move.', 'В запросе нет хода.'],
  MISSING_DEAL: ['The solution names no game and no deal ticket.', 'Решение не указывает ни игру, ни билет раздачи.'],
  UNDECODABLE_REQUEST: ['The server could not read the request.', 'Сервер не смог прочитать запрос.'],
  TOO_MANY_MOVES: ['That solution has more moves than the server takes at once.', 'В решении больше ходов, чем сервер принимает за раз.'],
  GAME_TOO_LONG: ['This game has as many moves as a game may hold: take some back or start a new game.', 'В этой партии уже столько ходов, сколько может быть в одной партии: отмените несколько или начните новую.'],
  // Dealing.
  CLIENT_SEED_WITH_TICKET: [
    'A ticket deals the same game to everyone: no seed of your own with it.',
    'Билет сдаёт всем одну и ту же игру: своё зерно с ним не указывают.',
  ],
  PREPARED_WITH_TICKET: ['A ticket deals the same game to everyone: no prepared seed with it.', 'Билет сдаёт всем одну и ту же игру: подготовленное зерно с ним не указывают.'],
  TICKET_FIXES_DEAL: ['The ticket names the game and its options already.', 'Билет уже задаёт игру и её параметры.'],
  PREPARED_NEEDS_CLIENT_SEED: ['A prepared deal needs your own seed too.', 'Для подготовленной раздачи нужно и ваше зерно.'],
  BAD_CLIENT_SEED: ['Your own seed must be 1 to 64 bytes.', 'Ваше зерно должно быть от 1 до 64 байт.'],
  BAD_PREPARED_ID: ['That is not a prepared deal of this server.', 'Это не подготовленная раздача этого сервера.'],
  PREPARED_NOT_FOUND: [
    'That prepared deal is used up or has expired: prepare another.',
    'Эта подготовленная раздача уже использована или истекла: подготовьте новую.',
  ],
  DEAL_FIELDS_CONFLICT: [
    'A replay or a numbered deal chooses the deal by itself: nothing else may choose it too.',
    'Повтор или номерная раздача сами задают раздачу: ничего другого к ним не добавить.',
  ],
  BAD_REPLAY_SEED: ['To play a deal again, give its seed: 32 bytes.', 'Чтобы сыграть раздачу снова, укажите её зерно: 32 байта.'],
  BAD_DEAL_NUMBER: ['Deal numbers run from 1 to 4294967295.', 'Номера раздач — от 1 до 4294967295.'],
  // Deal tickets (and a ticket's `why`).
  BAD_TICKET: ['That is not a valid deal ticket.', 'Это недействительный билет раздачи.'],
  TICKET_EXPIRED: ['That deal ticket has expired.', 'Срок этого билета раздачи истёк.'],
  EXPIRED: ['It has expired.', 'Срок истёк.'],
  NOT_YET_VALID: ['It is not valid yet.', 'Он ещё не действует.'],
  TICKET_DEAL_SECRET: [
    'This ticket\'s deal hides cards: play it as a game instead of sending a whole solution.',
    'В раздаче этого билета есть скрытые карты: сыграйте её, а не присылайте решение целиком.',
  ],
  TICKETS_UNAVAILABLE: ['This server deals no tickets.', 'Этот сервер не выдаёт билеты раздач.'],
  // Hints.
  HINTS_BUSY: ['The hint solver is busy: ask again in a moment.', 'Подсказки сейчас заняты: спросите чуть позже.'],
  HINTS_IN_PROGRESS: [
    'A hint for you is still being worked out: ask again once it is answered.',
    'Подсказка для вас ещё готовится: спросите снова, когда она будет готова.',
  ],
  HINTS_UNAVAILABLE: ['Hints are unavailable right now: try again.', 'Подсказки сейчас недоступны: попробуйте ещё раз.'],
  // Watching a game.
  BAD_AFTER_VERSION: ['That is not a version of the game.', 'Это не версия партии.'],
  BAD_LAST_EVENT_ID: ['That is not a version of the game.', 'Это не версия партии.'],
  WATCH_STREAMS_FULL: [
    'Too many people are watching on this server: try again in a moment.',
    'На этом сервере сейчас слишком много зрителей: попробуйте чуть позже.',
  ],
  WATCH_STREAMS_PER_CLIENT: [
    'You are watching too many games at once: close one first.',
    'Вы смотрите слишком много партий сразу: сначала закройте одну.',
  ],
  WATCH_UNAVAILABLE: [
    'This game cannot be watched live right now: try again.',
    'Сейчас за этой партией нельзя следить вживую: попробуйте ещё раз.',
  ],
  BAD_VALIDITY: ['A ticket\'s validity is out of range.', 'Срок действия билета вне допустимых пределов.'],
  BAD_LABEL: ['A ticket\'s label is at most 200 characters.', 'Подпись билета — не длиннее 200 символов.'],
  MINTING_DISABLED: ['This server mints no deal tickets.', 'Этот сервер не выпускает билеты раздач.'],
  MISSING_OPERATOR_KEY: ['Only the operator may do that.', 'Это может сделать только оператор.'],
  WRONG_OPERATOR_KEY: ['Only the operator may do that.', 'Это может сделать только оператор.'],
  CLIENT_CERTIFICATE_REQUIRED: ['Only the operator may do that.', 'Это может сделать только оператор.'],
  // Players (docs/players.md).
  MISSING_IDENTITY: ['Sign in first.', 'Сначала войдите.'],
  IDENTITY_MALFORMED: ['Your sign-in is not readable: sign in again.', 'Вход не читается: войдите снова.'],
  IDENTITY_ALGORITHM: ['Your sign-in is not acceptable: sign in again.', 'Вход не принят: войдите снова.'],
  IDENTITY_BAD_SIGNATURE: ['Your sign-in does not check out: sign in again.', 'Вход не прошёл проверку: войдите снова.'],
  IDENTITY_EXPIRED: ['Your sign-in has expired: sign in again.', 'Срок входа истёк: войдите снова.'],
  IDENTITY_NOT_YET_VALID: [
    'Your sign-in is not valid yet: check the clock of this device.',
    'Вход ещё не действует: проверьте часы этого устройства.',
  ],
  IDENTITY_WRONG_AUDIENCE: ['That sign-in is for another service.', 'Этот вход — для другого сервиса.'],
  IDENTITY_UNKNOWN_ISSUER: ['This server does not know that sign-in.', 'Этот сервер не знает такого входа.'],
  IDENTITY_UNKNOWN_KEY: ['Your sign-in is from an unknown key: sign in again.', 'Вход подписан неизвестным ключом: войдите снова.'],
  BAD_DISPLAY_NAME: [
    'A name is 1 to 32 visible characters, without control characters.',
    'Имя — от 1 до 32 видимых символов, без управляющих.',
  ],
  GUESTS_UNAVAILABLE: ['This server does not sign guests in.', 'Этот сервер не принимает гостей.'],
  IDENTITY_PROVIDER_UNAVAILABLE: [
    'Your sign-in cannot be checked right now: try again in a minute.',
    'Вход сейчас не проверить: попробуйте через минуту.',
  ],
  BAD_PAGE_SIZE: ['A page holds 1 to 100 games.', 'На странице — от 1 до 100 игр.'],
  BAD_PAGE_TOKEN: ['The list has changed: it starts again from the top.', 'Список изменился: он начнётся сначала.'],
  // The REST layer.
  INVALID_JSON: ['The server could not read the request.', 'Сервер не смог прочитать запрос.'],
  JSON_TOO_DEEP: ['The request is nested too deeply.', 'Запрос слишком глубоко вложен.'],
  BAD_QUERY_PARAMETER: ['The request has a bad parameter.', 'В запросе неверный параметр.'],
  UNKNOWN_PARAMETER: ['The request has a parameter the server does not know.', 'В запросе неизвестный серверу параметр.'],
  UNEXPECTED_BODY: ['That request takes no body.', 'Этот запрос не принимает тела.'],
  NO_SUCH_ROUTE: ['The server has no such address.', 'У сервера нет такого адреса.'],
  METHOD_NOT_ALLOWED: ['The server does not take that kind of request there.', 'Сервер не принимает там такой запрос.'],
  REQUEST_TOO_LARGE: ['The request is too large.', 'Запрос слишком велик.'],
  UNSUPPORTED_MEDIA_TYPE: ['The server reads JSON only.', 'Сервер читает только JSON.'],
  // Callers and limits.
  BAD_CLIENT_ADDRESS: ['The front end sent a bad client address.', 'Внешний сервер прислал неверный адрес клиента.'],
  UNTRUSTED_CLIENT_ADDRESS: ['The front end is not trusted to name the client.', 'Внешнему серверу не доверено называть клиента.'],
  RATE_LIMITED: ['Too many requests from here for now.', 'Отсюда пока слишком много запросов.'],
  // The server's own trouble.
  STORE_FULL: ['The server\'s storage is full right now; try again later.', 'Хранилище сервера сейчас заполнено; попробуйте позже.'],
  STORE_ERROR: ['The server\'s storage failed; try again.', 'Хранилище сервера дало сбой; попробуйте снова.'],
  ID_COLLISION: ['The server could not make a new id; try again.', 'Сервер не смог создать новый идентификатор; попробуйте снова.'],
  CORRUPT_STATE: ['The server cannot read this game back.', 'Сервер не может прочитать эту игру.'],
  CORRUPT_LOG: ['The server cannot read this game\'s moves back.', 'Сервер не может прочитать ходы этой игры.'],
  INTERNAL: ['Something went wrong on the server.', 'На сервере что-то пошло не так.'],
  UNIMPLEMENTED: ['This server does not do that.', 'Этот сервер так не умеет.'],
  // Certificates (VerifyCertificate, and this page's own check).
  MALFORMED: ['It is not a well-formed certificate.', 'Это не правильно составленный сертификат.'],
  UNSUPPORTED_TYPE: ['It is a kind of certificate this page does not read.', 'Эта страница не читает такой вид сертификата.'],
  UNKNOWN_KEY: ['It is signed by a key this server does not publish.', 'Он подписан ключом, которого этот сервер не публикует.'],
  BAD_SIGNATURE: ['The signature does not match: it was changed or forged.', 'Подпись не совпадает: его изменили или подделали.'],
  KEY_MISMATCH: ['It names two different signing keys.', 'В нём названы два разных ключа подписи.'],
  COMMITMENT_MISMATCH: ['Its seed is not the one the server committed to.', 'Его зерно — не то, к которому обязался сервер.'],
  COUNT_MISMATCH: ['Its move count does not match its moves.', 'Число ходов в нём не совпадает с самими ходами.'],
  UNSUPPORTED_DEAL_ALGORITHM: ['It was dealt by another deal algorithm than deal-v2.', 'Раздача сделана не алгоритмом deal-v2.'],
  NOT_WON: ['Its moves do not win the deal.', 'Его ходы не выигрывают раздачу.'],
  REPLAY_MISMATCH: ['Its moves win, but not in the position it certifies.', 'Его ходы выигрывают, но не в той позиции, что в нём указана.'],
  NO_WEBCRYPTO: ['This browser cannot check signatures (no WebCrypto).', 'Этот браузер не умеет проверять подписи (нет WebCrypto).'],
  NO_ED25519: ['This browser cannot check Ed25519 signatures.', 'Этот браузер не умеет проверять подписи Ed25519.'],
  NO_KEYS: ['The server published no keys to check it with.', 'Сервер не опубликовал ключей для проверки.'],
};

/** Refusals that mean "not now": said with when to try again, and without the server's words (its limits). */
const WAIT = new Set(['RATE_LIMITED', 'HINTS_BUSY', 'WINNABLE_POOL_EMPTY', 'UNREACHABLE', 'STORE_UNAVAILABLE']);

/** Every reason code this page explains (tests/web/test_web_messages.py compares it with the server's). */
export const REASON_CODES = Object.freeze(Object.keys(REASONS));

/** The general explanation of ``reason`` (any spelling) in the page's language, or ''. */
export function reasonText(reason) {
  const entry = REASONS[reasonCode(reason)];
  return entry ? entry[lang() === 'ru' ? 1 : 0] : '';
}

/**
 * A sentence for people, in the page's language: the explanation by reason code. The server's own words are
 * English: they follow (with their cards written as the table shows them) on an English page only; a Russian page
 * never shows them (a code it does not know reads «Не получилось.»).
 */
export function explain(error) {
  let general = reasonText(error.reason);
  // When to try again, from the answer's Retry-After, in words (never the raw limit the server names).
  if (general && error.retryAfter && WAIT.has(reasonCode(error.reason))) general = `${general} ${t('msg.retry-in', { n: Math.ceil(error.retryAfter) })}`;
  if (WAIT.has(reasonCode(error.reason))) return general;
  // The server's own words, but never a transport's ("HTTP 0" when the server could not be reached).
  const specific = /^HTTP \d+$/.test(error.message || '') ? '' : prettyCards(error.message || '');
  if (lang() === 'ru') return general || 'Не получилось.';
  if (!general) return specific || 'That did not work.';
  if (!specific || specific.toLowerCase() === general.toLowerCase()) return general;
  return `${general} (${specific})`;
}
