// The full rules of the game being played, in the page's language, drawn from rules-text.js (made from
// docs/rules.md and docs/rules.ru.md by tools/make_web_rules.py) with DOM calls only.

import { RULES } from './rules-text.js';

/** One line of text with its `code` and **bold** spans. */
function spans(parts) {
  const out = [];
  for (const [kind, text] of parts) {
    if (!kind) out.push(document.createTextNode(text));
    else {
      const node = document.createElement(kind === 'b' ? 'strong' : 'code');
      node.textContent = text;
      out.push(node);
    }
  }
  return out;
}

function block(b) {
  if (b.p) {
    const p = document.createElement('p');
    p.append(...spans(b.p));
    return p;
  }
  if (b.ul) {
    const ul = document.createElement('ul');
    for (const item of b.ul) {
      const li = document.createElement('li');
      li.append(...spans(item));
      ul.append(li);
    }
    return ul;
  }
  const table = document.createElement('table');
  const [head, ...rows] = b.table;
  const tr = table.createTHead().insertRow();
  for (const cell of head) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.append(...spans(cell));
    tr.append(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const r = body.insertRow();
    for (const cell of row) r.insertCell().append(...spans(cell));
  }
  const wrap = document.createElement('div');
  wrap.className = 'table-scroll';
  wrap.append(table);
  return wrap;
}

function section(root, entry, key) {
  const box = document.createElement('section');
  box.dataset.section = key;
  const h = document.createElement('h3');
  h.textContent = entry.title;
  box.append(h, ...entry.blocks.map(block));
  root.append(box);
}

/** The rules of ``variant``'s family, the common terms and the move notation, into ``root``. */
export function renderRules(root, variant, lang) {
  const rules = RULES[lang] || RULES.en;
  root.replaceChildren();
  root.lang = lang;
  const family = variant ? variant.family : 'king-chain';
  for (const key of [family, 'common', 'notation']) if (rules[key]) section(root, rules[key], key);
}

const SUMMARY_RU = {
  'royal-retinue':
    'Король открывает столбец 1, каждый следующий король — новый из 8 столбцов. Все 104 карты открыты; столбцы строятся по убыванию с чередованием цвета, 8 ячеек резерва, 8 домов от туза в масти; опустевший столбец не заполняется.',
  'royal-retinue-aces': 'Королевская свита, в которой 8 тузов заранее вынуты и начинают дома.',
  'royal-retinue-kings-last': 'Королевская свита без вынутого короля: каждый король закрывает свой столбец и переносится в его начало.',
  'cats-tail': 'Каждый король начинает следующий столбец, 9 столбцов, первый без короля. Построение по убыванию с чередованием цвета, 8 ячеек резерва, 8 домов.',
  tribunal:
    'Дамы отложены, король открывает столбец 1; игрок сдаёт колоду по карте в самый новый столбец и переносит свободные карты в 8 домов от туза до валета без учёта масти или на одинокого короля.',
  'picture-gallery': 'Трибунал, где одинокий король получает карту до прихода следующего, а столбцы можно собрать и сдать снова.',
  captives:
    'Семь пленников ждут под рядом королей; 8 столбцов по 4 карты строятся в масти; короли идут в ряд и собираются K, A, 2 … Q; собранная стопка освобождает пленника.',
  'sultan-36': 'Султан (K♥) среди 7 королей и туза червей; собирайте их в масти из колоды, сброса и 6 боковых ячеек, пока 8 дам не окружат его. Три прохода.',
  'sultan-52': 'Гарем султана с двумя полными колодами и 8 боковыми ячейками.',
};

/** A one-line description of ``variant`` in ``lang`` ('' to use the server's English summary). */
export function summary(variant, lang) {
  return lang === 'ru' ? SUMMARY_RU[variant.id] || '' : '';
}
