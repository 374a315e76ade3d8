// The page's words in English and Russian. The language follows the browser (navigator.languages) until the
// player picks one; the choice is kept in the browser. Game names come from the server (nameEn, nameRu).

const SAVED = 'patience.lang';
export const LANGUAGES = ['en', 'ru'];

const EN = {
  hints: 'Hints',
  'btn.auto': 'Auto',
  'btn.auto-title': 'Auto-play: send every safe card to the foundations (A)',
  'btn.again': 'Play this deal again',
  'btn.solution': 'The server’s solution',
  'hint.card': '{card} ({move})',
  'hint.WINNING_LINE': 'it starts a winning line the server found: {moves} move to the end.|it starts a winning line the server found: {moves} moves to the end.',
  'hint.WINS_IN_GUESSES': 'it won {wins} of {tried} guesses at the hidden cards (the server does not look at them).',
  'hint.SAFE_MOVE': 'a safe move home: it can never spoil a win.',
  'hint.BEST_SCORE': 'no win found within the server’s budget; this move looks best.',
  'hint.NO_MOVE': 'No move is left.',
  'msg.hint': 'Hint: {move}.',
  'msg.hint-why': 'Hint: {move} — {why}',
  'msg.auto-done': 'Auto-play: {n} card sent home.|Auto-play: {n} cards sent home.',
  'msg.auto-none': 'Auto-play: no card can go home safely now.',
  'msg.finishing': 'Every card left can go home: finishing the game.',
  'msg.bad-deal-number': 'A deal number is a whole number from 1 to 4294967295.',
  'new.winnable': 'Winnable deals only (the server has won each with every card known)',
  'new.number': 'Deal number (optional: public deal #N, the same for everyone)',
  'deal.public': 'deal #{n}',
  'deal.replay': 'replay',
  'deal.winnable': 'winnable deal',
  'result.winnable': '✔ This deal was dealt as winnable: the server won it with every card known before you were dealt it.',
  'result.solution': 'Its winning line, {n} move (check it with patience verify):|Its winning line, {n} moves (check it with patience verify):',
  'result.public': 'Public deal #{n}: its seed is SHA-256(“{text}”), the same for every player, so no fairness is claimed.',
  'result.public-ok': '✔ The revealed seed is public deal #{n}’s.',
  'result.public-bad': '✘ The revealed seed is NOT public deal #{n}’s.',
  'result.replay': 'A replay: the same deal as an earlier game, dealt from its revealed seed.',
  'cert.field.hints': 'Hints',
  'cert.dealt.random': 'at random',
  'cert.dealt.ticket': 'from a deal ticket',
  'cert.dealt.winnable': 'as winnable (solved by the server)',
  'cert.dealt.replay': 'a replay of a revealed seed',
  'cert.dealt.public': 'a public numbered deal',
  brand: 'Patience',
  moves: 'Moves',
  undos: 'Undos',
  time: 'Time',
  'btn.new': 'New game',
  'btn.undo': 'Undo',
  'btn.hint': 'Hint',
  'btn.resign': 'Resign',
  'btn.more': 'More',
  'btn.rules': 'Rules',
  'btn.stats': 'Statistics',
  'btn.certificate': 'Certificate',
  'btn.lang': 'Русский',
  'btn.close': 'Close',
  'btn.copy': 'Copy',
  'btn.download': 'Download',
  'btn.look': 'Look at the table',
  'btn.cancel': 'Cancel',
  'btn.deal': 'Deal',
  'new.title': 'Deal a new game',
  'new.game': 'Game',
  'new.undo': 'Allow undo',
  'new.fair': 'Fair play',
  'new.seed': 'Your seed (optional, mixed into the server’s deal)',
  'new.ticket': 'Deal ticket (optional, to play a shared deal)',
  'new.link': 'Link to deal this game:',
  table: 'The table',
  'family.king-chain': 'King chain',
  'family.salic-law': 'Salic Law',
  'family.captives': 'Captives',
  'family.sultan': 'Sultan’s Harem',
  'group.reserve': 'Reserve',
  'group.foundations': 'Foundations',
  'group.foundations-any': 'Foundations (A to J, any suit)',
  'group.stock': 'Stock',
  'group.king-row': 'King row',
  'group.stock-waste': 'Stock and waste',
  'pile.column': 'column {n}',
  'pile.cell': 'reserve cell {n}',
  'pile.side': 'side slot {n}',
  'pile.foundation': 'foundation {n}',
  'pile.waste': 'waste',
  'pile.slot': 'king-row slot {n}',
  'pile.cards': '{name}: {count}',
  'pile.empty': '{name}: empty',
  'pile.top': 'top card {card}',
  'pile.captive-down': 'captive {n}: face down',
  'pile.captive-up': 'captive {n}: {card}, released',
  'pile.slot-done': 'slot {n}: complete, turned over',
  'pile.queens': 'the queens (they never move)',
  'pile.sultan': 'the sultan',
  'stock.label': 'stock: {count}',
  'stock.deal': 'deal a card',
  'stock.turn': 'turn a card',
  'stock.redeal': 'redeal',
  'stock.redeals': '{n} redeal left|{n} redeals left',
  'status.GAME_STATUS_WON': 'Won',
  'status.GAME_STATUS_STUCK': 'No moves left',
  'status.GAME_STATUS_RESIGNED': 'Resigned',
  'status.GAME_STATUS_EXPIRED': 'Expired',
  'status.GAME_STATUS_FORFEITED': 'Forfeited',
  'msg.pick': '{card}: pick where it goes.',
  'msg.pick-run': '{card} and {more} more: pick where they go.',
  'msg.batch': '{n} card for the reserve ({text}): pick an empty cell.|{n} cards for the reserve ({text}): pick an empty cell.',
  'msg.took-back': 'Took back {move}.',
  'msg.won': 'You won! Every card is home.',
  'msg.stuck': 'No legal move is left. Undo, or resign to see the deal.',
  'msg.try': 'Try {move}.',
  'msg.stock-empty': 'The stock is empty.',
  'msg.stock-done': 'The stock is empty and there are no redeals left.',
  'msg.resign-confirm': 'Resign this game? The deal will be revealed.',
  'msg.no-token': 'This browser holds no key for game {id}: deal a new game.',
  'msg.unknown-variant': 'There is no game “{id}” here: pick one.',
  'msg.bad-option': 'Option {name}={value} is not allowed for this game.',
  'msg.nothing-home': 'That card cannot go to a foundation now.',
  'msg.copied': 'Copied.',
  'result.won': 'You won!',
  'result.resigned': 'Game resigned',
  'result.over': 'Game over',
  'result.won-text': '{moves} moves in {time}.|{moves} moves in {time}, {undos} taken back.',
  'result.revealed': 'The deal is shown face up on the table: the cards that were hidden are marked.',
  'result.stats': 'Your {name}: played {played}, won {won}, streak {streak}.',
  'result.new-best': 'A new best!',
  'cert.title': 'Certificate',
  'cert.checking': 'Checking the signature…',
  'cert.ok': '✔ Verified in this browser: Ed25519 signature by key {key}, published by the server.',
  'cert.bad': '✘ Not verified ({reason}).',
  'cert.none': 'This server signs no certificates, so this win has none. The server still keeps the game and its moves.',
  'cert.kept': 'Kept in this browser: reopen it any time from More → Certificate.',
  'cert.empty': 'No certificate is kept in this browser yet: win a game on a server that signs them.',
  'cert.pick': 'Certificate of',
  'fair.title': 'Deal',
  'fair.seed': 'Seed',
  'fair.commitment': 'Commitment',
  'fair.ok': '✔ The revealed seed hashes (SHA-256) to the commitment published when the game was dealt: the deal was fixed before the first move.',
  'fair.bad': '✘ The revealed seed does NOT match the commitment published when the game was dealt.',
  'mix.nokept': 'Your seed was mixed in, but this browser kept no server seed commitment for this game.',
  'mix.ok': '✔ The server fixed its seed (SHA-256 shown before you chose yours) and the deal mixes it with your seed: neither side chose the deal alone.',
  'mix.bad': '✘ The revealed server seed does NOT match what the server committed to before your seed, or the deal was not mixed from the two.',
  'deal.ok': '✔ Re-dealt in this browser with deal-v2 from the revealed seed: the same layout you were dealt.',
  'deal.unknown': 'The first layout of this game is not stored in this browser, so it cannot be re-dealt here.',
  'deal.bad': '✘ Re-dealing the revealed seed does NOT give the layout you were dealt ({reason}).',
  'stats.title': 'Statistics',
  'stats.game': 'Game',
  'stats.played': 'Played',
  'stats.won': 'Won',
  'stats.streak': 'Streak',
  'stats.best-streak': 'Best streak',
  'stats.best-time': 'Best time',
  'stats.best-moves': 'Fewest moves',
  'stats.none': 'No games played in this browser yet.',
  'stats.note': 'Kept in this browser only. Replays and numbered public deals are not counted.',
  'result.not-counted': 'Replays and numbered public deals are not counted in the statistics.',
  'rules.title': 'Rules',
  'rules.notation': 'How to play here',
  'rules.controls': 'Click or tap a card, then where it goes; or drag it. Click it again (or double-click, double-tap) to send it to a foundation. Shift-click several free cards to put them in the reserve as one move. Keyboard: Tab and the arrow keys move between piles, Enter or Space picks a card up and puts it down, ↑ and ↓ choose how many cards of a column, F sends a card home, H asks for a hint, A sends the safe cards home, Esc drops it, Ctrl+Z undoes.',
  'cert.field.game_id': 'Game',
  'cert.field.variant': 'Variant',
  'cert.field.move_count': 'Moves',
  'cert.field.undo_count': 'Undos',
  'cert.field.seed': 'Seed',
  'cert.field.commitment': 'Commitment',
  'cert.field.finished_at': 'Finished',
  'cert.field.key_id': 'Key',
  'cert.field.dealt': 'Dealt',
  'cert.field.deal_number': 'Deal number',
  'option.sequence_moves': 'A run of several cards may move as one move',
  'option.deals': 'Deals in all (the first included)',
};

const RU = {
  hints: 'Подсказки',
  'btn.auto': 'Авто',
  'btn.auto-title': 'Автоходы: отправить в дом все карты, которые можно отправить без риска (A)',
  'btn.again': 'Сыграть эту раздачу ещё раз',
  'btn.solution': 'Решение сервера',
  'hint.card': '{card} ({move})',
  'hint.WINNING_LINE': 'с него начинается выигрышная линия, найденная сервером: до конца {moves} ход.|с него начинается выигрышная линия, найденная сервером: до конца {moves} хода.|с него начинается выигрышная линия, найденная сервером: до конца {moves} ходов.',
  'hint.WINS_IN_GUESSES': 'он выиграл в {wins} из {tried} догадок о закрытых картах (сервер в них не заглядывает).',
  'hint.SAFE_MOVE': 'безопасный ход в дом: он не может испортить выигрыш.',
  'hint.BEST_SCORE': 'в пределах бюджета сервера выигрыш не найден; этот ход выглядит лучшим.',
  'hint.NO_MOVE': 'Ходов больше нет.',
  'msg.hint': 'Подсказка: {move}.',
  'msg.hint-why': 'Подсказка: {move} — {why}',
  'msg.auto-done': 'Автоходы: в дом отправлена {n} карта.|Автоходы: в дом отправлены {n} карты.|Автоходы: в дом отправлено {n} карт.',
  'msg.auto-none': 'Автоходы: сейчас ни одну карту нельзя без риска отправить в дом.',
  'msg.finishing': 'Все оставшиеся карты могут уйти в дом: доигрываю партию.',
  'msg.bad-deal-number': 'Номер раздачи — целое число от 1 до 4294967295.',
  'new.winnable': 'Только выигрышные раздачи (сервер выиграл каждую, зная все карты)',
  'new.number': 'Номер раздачи (необязательно: открытая раздача №N, одна для всех)',
  'deal.public': 'раздача №{n}',
  'deal.replay': 'повтор',
  'deal.winnable': 'выигрышная раздача',
  'result.winnable': '✔ Эта раздача выдана как выигрышная: сервер выиграл её, зная все карты, ещё до того, как вы её получили.',
  'result.solution': 'Его выигрышная линия, {n} ход (проверьте её командой patience verify):|Его выигрышная линия, {n} хода (проверьте её командой patience verify):|Его выигрышная линия, {n} ходов (проверьте её командой patience verify):',
  'result.public': 'Открытая раздача №{n}: её зерно — SHA-256(«{text}»), одно для всех игроков, поэтому о её честности речи нет.',
  'result.public-ok': '✔ Открытое зерно совпадает с зерном раздачи №{n}.',
  'result.public-bad': '✘ Открытое зерно НЕ совпадает с зерном раздачи №{n}.',
  'result.replay': 'Повтор: та же раздача, что в одной из прошлых партий, сданная по её открытому зерну.',
  'cert.field.hints': 'Подсказки',
  'cert.dealt.random': 'случайная',
  'cert.dealt.ticket': 'по билету раздачи',
  'cert.dealt.winnable': 'выигрышная (решена сервером)',
  'cert.dealt.replay': 'повтор по открытому зерну',
  'cert.dealt.public': 'открытая номерная раздача',
  brand: 'Пасьянс',
  moves: 'Ходы',
  undos: 'Отмены',
  time: 'Время',
  'btn.new': 'Новая игра',
  'btn.undo': 'Отменить',
  'btn.hint': 'Подсказка',
  'btn.resign': 'Сдаться',
  'btn.more': 'Ещё',
  'btn.rules': 'Правила',
  'btn.stats': 'Статистика',
  'btn.certificate': 'Сертификат',
  'btn.lang': 'English',
  'btn.close': 'Закрыть',
  'btn.copy': 'Копировать',
  'btn.download': 'Скачать',
  'btn.look': 'Посмотреть на стол',
  'btn.cancel': 'Отмена',
  'btn.deal': 'Сдать',
  'new.title': 'Новая раздача',
  'new.game': 'Игра',
  'new.undo': 'Разрешить отмену ходов',
  'new.fair': 'Честная игра',
  'new.seed': 'Ваше зерно (по желанию, смешивается с зерном сервера)',
  'new.ticket': 'Билет раздачи (по желанию, чтобы сыграть общую раздачу)',
  'new.link': 'Ссылка на эту игру:',
  table: 'Стол',
  'family.king-chain': 'Королевская цепь',
  'family.salic-law': 'Салический закон',
  'family.captives': 'Пленники',
  'family.sultan': 'Гарем султана',
  'group.reserve': 'Резерв',
  'group.foundations': 'Дома',
  'group.foundations-any': 'Дома (от туза до валета, любой масти)',
  'group.stock': 'Колода',
  'group.king-row': 'Ряд королей',
  'group.stock-waste': 'Колода и сброс',
  'pile.column': 'столбец {n}',
  'pile.cell': 'ячейка резерва {n}',
  'pile.side': 'боковая ячейка {n}',
  'pile.foundation': 'дом {n}',
  'pile.waste': 'сброс',
  'pile.slot': 'место в ряду королей {n}',
  'pile.cards': '{name}: {count}',
  'pile.empty': '{name}: пусто',
  'pile.top': 'сверху {card}',
  'pile.captive-down': 'пленник {n}: рубашкой вверх',
  'pile.captive-up': 'пленник {n}: {card}, освобождён',
  'pile.slot-done': 'место {n}: собрано и перевёрнуто',
  'pile.queens': 'дамы (они не ходят)',
  'pile.sultan': 'султан',
  'stock.label': 'колода: {count}',
  'stock.deal': 'сдать карту',
  'stock.turn': 'открыть карту',
  'stock.redeal': 'пересдать',
  'stock.redeals': 'осталась {n} пересдача|осталось {n} пересдачи|осталось {n} пересдач',
  'status.GAME_STATUS_WON': 'Победа',
  'status.GAME_STATUS_STUCK': 'Ходов нет',
  'status.GAME_STATUS_RESIGNED': 'Сдана',
  'status.GAME_STATUS_EXPIRED': 'Истекла',
  'status.GAME_STATUS_FORFEITED': 'Поражение засчитано',
  'msg.pick': '{card}: выберите, куда положить.',
  'msg.pick-run': '{card} и ещё {more}: выберите, куда положить.',
  'msg.batch': '{n} карта в резерв ({text}): выберите пустую ячейку.|{n} карты в резерв ({text}): выберите пустую ячейку.|{n} карт в резерв ({text}): выберите пустую ячейку.',
  'msg.took-back': 'Ход {move} отменён.',
  'msg.won': 'Победа! Все карты в домах.',
  'msg.stuck': 'Ходов больше нет. Отмените ход или сдайтесь, чтобы увидеть раздачу.',
  'msg.try': 'Попробуйте {move}.',
  'msg.stock-empty': 'Колода пуста.',
  'msg.stock-done': 'Колода пуста, и пересдач больше нет.',
  'msg.resign-confirm': 'Сдаться? Раздача будет открыта.',
  'msg.no-token': 'В этом браузере нет ключа к игре {id}: сдайте новую.',
  'msg.unknown-variant': 'Игры «{id}» здесь нет: выберите другую.',
  'msg.bad-option': 'Параметр {name}={value} для этой игры не допускается.',
  'msg.nothing-home': 'Эту карту сейчас нельзя положить в дом.',
  'msg.copied': 'Скопировано.',
  'result.won': 'Победа!',
  'result.resigned': 'Игра сдана',
  'result.over': 'Игра окончена',
  'result.won-text': '{moves} ходов за {time}.|{moves} ходов за {time}, отменено {undos}.',
  'result.revealed': 'Раздача открыта на столе: отмечены карты, которые были скрыты.',
  'result.stats': '{name}: сыграно {played}, выиграно {won}, серия {streak}.',
  'result.new-best': 'Новый рекорд!',
  'cert.title': 'Сертификат',
  'cert.checking': 'Проверяем подпись…',
  'cert.ok': '✔ Проверено в этом браузере: подпись Ed25519 ключом {key}, опубликованным сервером.',
  'cert.bad': '✘ Не подтверждено ({reason}).',
  'cert.none': 'Этот сервер не подписывает сертификаты, поэтому у этой победы его нет. Игра и её ходы сохранены на сервере.',
  'cert.kept': 'Сохранён в этом браузере: откройте его снова в меню «Ещё → Сертификат».',
  'cert.empty': 'В этом браузере пока нет сертификатов: выиграйте игру на сервере, который их подписывает.',
  'cert.pick': 'Сертификат игры',
  'fair.title': 'Раздача',
  'fair.seed': 'Зерно',
  'fair.commitment': 'Обязательство',
  'fair.ok': '✔ Открытое зерно даёт (SHA-256) обязательство, опубликованное при раздаче: раздача была определена до первого хода.',
  'fair.bad': '✘ Открытое зерно НЕ совпадает с обязательством, опубликованным при раздаче.',
  'mix.nokept': 'Ваше зерно было смешано, но этот браузер не сохранил обязательство сервера для этой игры.',
  'mix.ok': '✔ Сервер зафиксировал своё зерно (SHA-256 показан до того, как вы выбрали своё), и раздача смешивает его с вашим: никто не выбирал раздачу в одиночку.',
  'mix.bad': '✘ Открытое зерно сервера НЕ совпадает с обязательством, данным до вашего зерна, или раздача не смешана из двух.',
  'deal.ok': '✔ Пересдано в этом браузере алгоритмом deal-v2 из открытого зерна: та же раскладка, что вам сдали.',
  'deal.unknown': 'Первая раскладка этой игры не сохранена в этом браузере, поэтому её нельзя пересдать здесь.',
  'deal.bad': '✘ Пересдача открытого зерна НЕ даёт ту раскладку, что вам сдали ({reason}).',
  'stats.title': 'Статистика',
  'stats.game': 'Игра',
  'stats.played': 'Сыграно',
  'stats.won': 'Выиграно',
  'stats.streak': 'Серия',
  'stats.best-streak': 'Лучшая серия',
  'stats.best-time': 'Лучшее время',
  'stats.best-moves': 'Меньше всего ходов',
  'stats.none': 'В этом браузере ещё не сыграно ни одной игры.',
  'stats.note': 'Хранится только в этом браузере. Повторы и открытые номерные раздачи не учитываются.',
  'result.not-counted': 'Повторы и открытые номерные раздачи в статистике не учитываются.',
  'rules.title': 'Правила',
  'rules.notation': 'Как играть здесь',
  'rules.controls': 'Щёлкните или коснитесь карты, затем места, куда её положить; или перетащите её. Второй щелчок (или двойной щелчок, двойное касание) отправляет карту в дом. Shift-щелчок по нескольким свободным картам кладёт их в резерв одним ходом. Клавиатура: Tab и стрелки переходят между стопками, Enter или пробел берут и кладут карту, ↑ и ↓ выбирают, сколько карт столбца взять, F отправляет карту в дом, H даёт подсказку, A отправляет в дом карты, которым ничто не грозит, Esc отпускает карту, Ctrl+Z отменяет ход.',
  'cert.field.game_id': 'Игра',
  'cert.field.variant': 'Вариант',
  'cert.field.move_count': 'Ходы',
  'cert.field.undo_count': 'Отмены',
  'cert.field.seed': 'Зерно',
  'cert.field.commitment': 'Обязательство',
  'cert.field.finished_at': 'Окончена',
  'cert.field.key_id': 'Ключ',
  'cert.field.dealt': 'Раздача',
  'cert.field.deal_number': 'Номер раздачи',
  'option.sequence_moves': 'Последовательность карт переносится одним ходом',
  'option.deals': 'Всего раздач (включая первую)',
};

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

/** The text for ``key`` with {names} filled in; a key with "a|b" forms picks one by the first number given. */
export function t(key, vars = {}) {
  const text = STRINGS[current][key] ?? EN[key] ?? key;
  const n = vars.n ?? vars.moves ?? vars.count;
  const forms = text.split('|');
  const pick = key === 'result.won-text' ? forms[vars.undos ? 1 : 0] : form(n, forms);
  return pick.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
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
