// Algorithm deal-v2 (docs/rules.md "The deal", docs/deal-v2.md): the project's one JavaScript implementation, an ES
// module that runs in a browser and in Node.js 18 or later (WebCrypto's HMAC-SHA256 in both).
// The web client re-deals a finished game with it and compares each family's first layout with the layout the
// page was shown when the game was dealt: with the commitment check this shows the deal was neither chosen after
// the fact nor changed on the way. The test suite checks it under node against the published vectors.
//
//   import { dealCards } from './deal.js';
//   const { shuffled, pulled, rest } = await dealCards(seedBytes, 'royal-retinue', 104);

const RANKS_52 = 'A23456789TJQK'.split('');
const RANKS_36 = 'A6789TJQK'.split('');
const TWO64 = 1n << 64n;

/**
 * What each variant pulls out: `sets`, the ranks of which all 8 cards are removed after the shuffle (step 6);
 * `single`, the card of which one of several alike is then chosen by the stream (step 7).
 */
export const PULLS = {
  'royal-retinue': { sets: [], single: (c) => c[0] === 'K' },
  'royal-retinue-aces': { sets: ['A'], single: (c) => c[0] === 'K' },
  'royal-retinue-kings-last': { sets: [], single: null },
  'cats-tail': { sets: [], single: null },
  tribunal: { sets: ['Q'], single: (c) => c[0] === 'K' },
  'picture-gallery': { sets: ['Q'], single: (c) => c[0] === 'K' },
  captives: { sets: [], single: null },
  'sultan-36': { sets: ['K'], single: (c) => c === 'AH' },
  'sultan-52': { sets: ['K'], single: (c) => c === 'AH' },
};

// Browsers and Node.js >= 19 have WebCrypto as globalThis.crypto; Node.js 18 (Debian bookworm's) has it in node:crypto.
const subtle = globalThis.crypto?.subtle ?? (await import('node:crypto')).webcrypto.subtle;

async function hmac(key, data) {
  const k = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', k, data));
}

/** The largest public deal number (deal numbers are 1 .. 2^32-1, NewGameRequest.deal_number). */
export const MAX_DEAL_NUMBER = 2 ** 32 - 1;

/**
 * The 32-byte seed of public deal #n (docs/deal-v2.md, "Numbered public deals"):
 * SHA-256("patience-public-deal|" + n in decimal), the same for every game.
 */
export async function publicDealSeed(n) {
  if (!Number.isInteger(n) || n < 1 || n > MAX_DEAL_NUMBER) {
    throw new RangeError(`a public deal's number is 1 to ${MAX_DEAL_NUMBER}`);
  }
  const text = new TextEncoder().encode(`patience-public-deal|${n}`);
  return new Uint8Array(await subtle.digest('SHA-256', text));
}

/** Steps 1-3: `uniform(n)` over the HMAC-SHA256 counter stream of (seed, variant). */
export async function randomStream(seed, variant) {
  const key = await hmac(seed, new TextEncoder().encode(`deal-v2|${variant}`));
  let buffer = new Uint8Array(0);
  let block = 0n;
  async function next64() {
    if (buffer.length < 8) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, block++);
      const more = await hmac(key, counter);
      const joined = new Uint8Array(buffer.length + more.length);
      joined.set(buffer);
      joined.set(more, buffer.length);
      buffer = joined;
    }
    const x = new DataView(buffer.buffer, buffer.byteOffset, 8).getBigUint64(0);
    buffer = buffer.subarray(8);
    return x;
  }
  return {
    async uniform(n) {
      const N = BigInt(n);
      const limit = TWO64 - (TWO64 % N);
      for (;;) {
        const x = await next64();
        if (x < limit) return Number(x % N);
      }
    },
  };
}

/** Steps 4-5: the whole shuffled list, index 0 on top, and the stream where the shuffle stopped. */
export async function shuffle(seed, variant, size) {
  const stream = await randomStream(seed, variant);
  const ranks = size === 104 ? RANKS_52 : RANKS_36;
  const cards = [];
  for (let copy = 0; copy < 2; copy++) for (const s of 'CDHS') for (const r of ranks) cards.push(r + s);
  for (let i = cards.length - 1; i >= 1; i--) {
    const j = await stream.uniform(i + 1);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return { cards, stream };
}

/** The whole shuffled list, index 0 on top (dealt first). */
export async function shuffledDeck(seed, variant, size) {
  return (await shuffle(seed, variant, size)).cards;
}

/**
 * Steps 1-7: `shuffled` (the whole list), `sets` (the cards of each whole set, in list order), `pulled` (the single
 * card: `{ m, k, card, index }`, index in `shuffled`; null if the variant pulls none) and `rest`, the list without
 * them in its order.
 */
export async function dealCards(seed, variant, size) {
  const pulls = PULLS[variant];
  if (!pulls) throw new Error(`no game ${variant}`);
  const { cards, stream } = await shuffle(seed, variant, size);
  const sets = {};
  for (const r of pulls.sets) sets[r] = cards.filter((c) => c[0] === r);
  const rest = [];
  const at = [];
  cards.forEach((c, i) => {
    if (!pulls.sets.includes(c[0])) {
      rest.push(c);
      at.push(i);
    }
  });
  let pulled = null;
  if (pulls.single) {
    const where = [];
    rest.forEach((c, i) => pulls.single(c) && where.push(i));
    const k = await stream.uniform(where.length);
    const [card] = rest.splice(where[k], 1);
    pulled = { m: where.length, k, card, index: at[where[k]] };
  }
  return { shuffled: cards, sets, pulled, rest };
}

const isKing = (c) => c[0] === 'K';

/** What the player saw right after the deal (the parts of the view a deal fixes), from `dealCards`' result. */
export function firstLayout(variant, dealt) {
  const { shuffled, sets, pulled, rest } = dealt;
  switch (variant) {
    case 'royal-retinue':
    case 'royal-retinue-aces': {
      const columns = [[pulled.card]];
      for (const c of rest) {
        if (isKing(c) && columns.length < 8) columns.push([c]);
        else columns[columns.length - 1].push(c);
      }
      return { columns, foundations: sets.A ? sets.A.map((a) => [a]) : null };
    }
    case 'royal-retinue-kings-last': {
      const columns = [[]];
      let last = null;
      for (const c of shuffled) {
        if (!isKing(c)) columns[columns.length - 1].push(c);
        else if (columns.length < 8) {
          columns[columns.length - 1].unshift(c);
          columns.push([]);
        } else last = c;
      }
      columns[columns.length - 1].unshift(last);
      return { columns };
    }
    case 'cats-tail': {
      const columns = [[]];
      for (const c of shuffled) {
        if (isKing(c)) columns.push([c]);
        else columns[columns.length - 1].push(c);
      }
      return { columns };
    }
    case 'tribunal':
    case 'picture-gallery':
      return { columns: [[pulled.card]], fixed: sets.Q };
    case 'captives': {
      const table = shuffled.slice(7, 39);
      const columns = [...Array(8).keys()].map((col) => table.filter((_, i) => i % 8 === col));
      return { columns };
    }
    case 'sultan-36':
    case 'sultan-52':
      return { cells: rest.slice(0, variant === 'sultan-36' ? 6 : 8) };
    default:
      return null;
  }
}

/** Compare the recomputed first layout with the view the page saved at the deal. */
export async function checkDeal(seed, variant, size, firstView) {
  if (!PULLS[variant]) return { ok: false, reason: 'UNKNOWN_VARIANT' };
  const layout = firstLayout(variant, await dealCards(seed, variant, size));
  if (!firstView) return { ok: null, reason: 'NO_FIRST_VIEW' };
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  if (layout.columns && !same(layout.columns, firstView.columns.map((p) => p.cards || []))) {
    return { ok: false, reason: 'columns' };
  }
  if (layout.foundations && !same(layout.foundations, firstView.foundations.map((p) => p.cards || []))) {
    return { ok: false, reason: 'foundations' };
  }
  if (layout.cells && !same(layout.cells, firstView.cells)) return { ok: false, reason: 'cells' };
  if (layout.fixed && !same(layout.fixed, firstView.fixed)) return { ok: false, reason: 'fixed' };
  return { ok: true, reason: '' };
}
