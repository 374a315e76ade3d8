// Each game's rules for people: a picture of its layout, the goal, how cards move and what the stock does, in
// English and Russian, short enough to read on one phone screen. The full rules (rules.js, from docs/rules.md and
// docs/rules.ru.md) stay one click away, under them.

const GUIDE = {
  en: {
    head: { goal: 'Goal', layout: 'The deal', moves: 'Moves', stock: 'The stock' },
    'king-chain': {
      goal: 'Move all 104 cards to the 8 foundations: each starts with an ace and is built up in its suit to the king.',
      moves: [
        'Move the last card of a column onto a card one rank higher of the other colour (7♥ on 8♠); a run built so moves as one.',
        'The 8 reserve cells hold one card each; several last cards can go to the reserve in one move.',
        'A column once empty stays empty.',
      ],
      stock: 'There is none: every card is face up on the table from the start, so plan ahead.',
    },
    'salic-law': {
      goal: 'Build the 88 cards from ace to jack onto the 8 foundations, suits mixed: A, 2, 3 … J.',
      moves: [
        'Only the last card of a column moves: to a foundation, or onto a king standing alone.',
        'Kings never move; the 8 queens lie aside and never play.',
      ],
      stock: 'Tap it to deal its next card onto the newest column; a king starts a new column (8 at most).',
    },
    captives: {
      goal: 'Fill the king row: 8 piles, each K, A, 2 … Q in one suit. A finished pile frees the captive under it.',
      moves: [
        'The last card of a column goes onto the next higher card of its suit (nothing goes on an ace); a run in suit moves at once.',
        'An empty column takes any card; a king goes to the leftmost empty place of the king row.',
      ],
      stock: 'Tap it to turn a card onto the waste; when it is empty, tap again to turn the waste over (3 passes in all).',
    },
    sultan: {
      goal: 'Build every card onto the 8 piles around the sultan (K♥): the kings K, A, 2 … Q in suit, the A♥ up to Q♥. You win when 8 queens surround him.',
      moves: [
        'A card goes home from the waste or from a side slot.',
        'An empty side slot takes the top card of the waste.',
      ],
      stock: 'Tap it to turn a card onto the waste; when it is empty, tap again to turn the waste over (3 passes in all).',
    },
    layout: {
      'royal-retinue': 'A king starts column 1; every card after it goes below it until the next king starts the next column. 8 columns, all face up.',
      'royal-retinue-aces': 'As Royal Retinue, but the 8 aces start on the foundations.',
      'royal-retinue-kings-last': 'Each column ends where a king came out, and that king is moved to its head. 8 columns, all face up.',
      'cats-tail': 'Each king that comes out starts the next column: 9 columns, the first without a king, all face up.',
      tribunal: 'The 8 queens lie aside, a king starts column 1; the rest is the stock, face down.',
      'picture-gallery': 'As Tribunal. When the stock runs out, tap it to gather the columns and deal them again (2 passes, 3 if chosen); a king right after another first gives it a card.',
      captives: '7 captives face down under the king row, 8 columns of 4 cards face up, the rest in the stock.',
      'sultan-36': 'Two 36-card decks (6 to ace). The sultan in the middle of a 3×3 square, the A♥ above him, 7 kings around; 6 side slots. Kings build K, A, 6 … Q.',
      'sultan-52': 'Two full decks. The sultan in the middle of a 3×3 square, the A♥ above him, 7 kings around; 8 side slots.',
    },
    full: 'The full rules',
    picture: 'The layout of {name}',
  },
  ru: {
    head: { goal: 'Цель', layout: 'Раздача', moves: 'Ходы', stock: 'Колода' },
    'king-chain': {
      goal: 'Переложить все 104 карты в 8 домов: каждый начинается с туза и собирается по возрастанию в масти до короля.',
      moves: [
        'Последняя карта столбца кладётся на карту на одно достоинство старше и другого цвета (7♥ на 8♠); так сложенная последовательность переносится целиком.',
        'В 8 ячеек резерва кладётся по одной карте; несколько последних карт можно убрать в резерв одним ходом.',
        'Опустевший столбец остаётся пустым.',
      ],
      stock: 'Колоды нет: все карты с самого начала открыты на столе, поэтому думайте наперёд.',
    },
    'salic-law': {
      goal: 'Собрать 88 карт от туза до валета в 8 домов, без учёта масти: A, 2, 3 … J.',
      moves: [
        'Ходит только последняя карта столбца: в дом или на короля, оставшегося в столбце одним.',
        'Короли не ходят; 8 дам отложены и в игре не участвуют.',
      ],
      stock: 'Нажмите на неё — следующая карта ляжет в самый новый столбец; король начинает новый столбец (не больше 8).',
    },
    captives: {
      goal: 'Заполнить ряд королей: 8 стопок, каждая K, A, 2 … Q одной масти. Собранная стопка освобождает пленника под ней.',
      moves: [
        'Последняя карта столбца кладётся на старшую на одно достоинство карту своей масти (на туза — ничего); последовательность в масти переносится целиком.',
        'В пустой столбец можно положить любую карту; король идёт на самое левое пустое место ряда королей.',
      ],
      stock: 'Нажмите на неё — карта откроется в сброс; когда колода пуста, нажмите снова, чтобы перевернуть сброс (всего 3 прохода).',
    },
    sultan: {
      goal: 'Собрать все карты в 8 стопок вокруг султана (K♥): короли — K, A, 2 … Q в масти, туз червей — до дамы червей. Победа — когда султана окружат 8 дам.',
      moves: [
        'Карта идёт в дом из сброса или из боковой ячейки.',
        'В пустую боковую ячейку ложится верхняя карта сброса.',
      ],
      stock: 'Нажмите на неё — карта откроется в сброс; когда колода пуста, нажмите снова, чтобы перевернуть сброс (всего 3 прохода).',
    },
    layout: {
      'royal-retinue': 'Король открывает столбец 1; следующие карты ложатся под него, пока новый король не начнёт следующий столбец. 8 столбцов, все карты открыты.',
      'royal-retinue-aces': 'Как Королевская свита, но 8 тузов сразу лежат в домах.',
      'royal-retinue-kings-last': 'Каждый столбец кончается там, где вышел король, и этот король переносится в его начало. 8 столбцов, все карты открыты.',
      'cats-tail': 'Каждый вышедший король начинает следующий столбец: 9 столбцов, первый без короля, все карты открыты.',
      tribunal: '8 дам отложены, король открывает столбец 1; остальные карты — колода рубашкой вверх.',
      'picture-gallery': 'Как Трибунал. Когда колода кончится, нажмите на неё: столбцы соберутся и сдадутся снова (2 прохода, по выбору 3); король, вышедший сразу за другим, сначала даёт ему карту.',
      captives: '7 пленников рубашкой вверх под рядом королей, 8 открытых столбцов по 4 карты, остальное — колода.',
      'sultan-36': 'Две колоды по 36 карт (от шестёрки до туза). Султан в середине квадрата 3×3, туз червей над ним, 7 королей вокруг; 6 боковых ячеек. Короли собираются K, A, 6 … Q.',
      'sultan-52': 'Две полные колоды. Султан в середине квадрата 3×3, туз червей над ним, 7 королей вокруг; 8 боковых ячеек.',
    },
    full: 'Полные правила',
    picture: 'Раскладка игры «{name}»',
  },
};

/** Every game the guide knows (tests/web hold it to the server's catalogue). */
export const GUIDE_VARIANTS = Object.freeze(Object.keys(GUIDE.en.layout));

const RED = new Set(['♥', '♦']);

function mini(text, kind = '') {
  const node = document.createElement('span');
  node.className = `mini ${kind}`.trim();
  if (text && RED.has(text.slice(-1))) node.classList.add('red');
  node.textContent = text;
  return node;
}

function stack(cards, kind = 'fan') {
  const node = document.createElement('span');
  node.className = `mini-${kind}`;
  node.append(...cards.map((c) => (typeof c === 'string' ? mini(c) : c)));
  return node;
}

function box(className, ...children) {
  const node = document.createElement('span');
  node.className = className;
  node.append(...children);
  return node;
}

const slots = (n, label = '') => Array.from({ length: n }, () => mini(label, 'place'));

/** A small picture of the family's layout, drawn with the page's own card colours. */
function picture(family, variantId) {
  if (family === 'king-chain') {
    const cols = [
      ['K♠', 'Q♦', '5♣', 'J♥'],
      ['K♥', '9♠', 'Q♣'],
      ['K♦', '3♥', '10♠', '8♦', '2♣'],
      ['K♣', 'A♥'],
      ['K♠', '7♣', '6♥', '4♠'],
    ];
    if (variantId === 'cats-tail') cols[0] = ['Q♦', '5♣', 'J♥'];
    return box('mini-layout', box('mini-grid', ...slots(4)), box('mini-row', ...cols.map((c) => stack(c))), box('mini-grid', ...slots(4, 'A')));
  }
  if (family === 'salic-law') {
    return box(
      'mini-layout column',
      box('mini-row', stack(['Q♠', 'Q♥', 'Q♦', 'Q♣'], 'row'), mini('', 'back'), ...slots(3, 'A')),
      box('mini-row', stack(['K♣', '7♦', '3♠']), stack(['K♥', 'J♣']), stack(['K♦'])),
    );
  }
  if (family === 'captives') {
    const slot = (k) => box('mini-king', k ? mini(k) : mini('K', 'place'), mini('', 'back'));
    return box(
      'mini-layout column',
      box('mini-row', slot('K♠'), slot(''), slot(''), mini('', 'back'), mini('7♣')),
      box('mini-row', stack(['9♥', '4♣', 'J♠', '8♥']), stack(['2♦', 'Q♠', '10♣', '5♥']), stack(['K♣', '6♦', 'A♠', '3♥'])),
    );
  }
  return box(
    'mini-layout',
    box('mini-grid tall', ...slots(3)),
    box('mini-square', mini('K♣'), mini('A♥'), mini('K♦'), mini('K♠'), mini('K♥', 'throne'), mini('K♥'), mini('K♣'), mini('K♦'), mini('K♠')),
    box('mini-grid tall', ...slots(3)),
    box('mini-row', mini('', 'back'), mini('9♠')),
  );
}

function section(title, ...content) {
  const node = document.createElement('section');
  const h = document.createElement('h3');
  h.textContent = title;
  node.append(h, ...content);
  return node;
}

function para(text) {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

/** The guide to ``variant`` in ``lang`` (name: the game's name in that language), into ``root``. */
export function renderGuide(root, variant, lang, name) {
  const words = GUIDE[lang] || GUIDE.en;
  const family = words[variant.family] || words['king-chain'];
  const pic = picture(variant.family, variant.id);
  pic.setAttribute('role', 'img');
  pic.setAttribute('aria-label', words.picture.replace('{name}', name));
  const list = document.createElement('ul');
  for (const line of family.moves) {
    const li = document.createElement('li');
    li.textContent = line;
    list.append(li);
  }
  root.replaceChildren(
    pic,
    section(words.head.goal, para(family.goal)),
    section(words.head.layout, para(words.layout[variant.id] || '')),
    section(words.head.moves, list),
    section(words.head.stock, para(family.stock)),
  );
  root.lang = lang;
  return words.full;
}
