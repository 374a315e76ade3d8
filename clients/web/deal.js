// Re-dealing a finished game in the browser: algorithm deal-v1 (RULES.md, docs/deal-v1.md) with WebCrypto's
// HMAC-SHA256, then each family's first layout, compared with the layout the page was shown when the game was
// dealt. With the commitment check this shows the deal was neither chosen after the fact nor changed on the way.
// (An independent port of docs/deal-v1.js; the browser tests check it against the Python engine.)

const RANKS_52 = 'A23456789TJQK'.split('');
const RANKS_36 = 'A6789TJQK'.split('');

async function hmac(key, data) {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, data));
}

/** The whole shuffled list, index 0 on top (dealt first). */
export async function shuffledDeck(seed, variant, size) {
  const key = await hmac(seed, new TextEncoder().encode(`deal-v1|${variant}`));
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
  async function uniform(n) {
    const N = BigInt(n);
    const limit = (1n << 64n) - ((1n << 64n) % N);
    for (;;) {
      const x = await next64();
      if (x < limit) return Number(x % N);
    }
  }
  const ranks = size === 104 ? RANKS_52 : RANKS_36;
  const deck = [];
  for (let copy = 0; copy < 2; copy++) for (const s of 'CDHS') for (const r of ranks) deck.push(r + s);
  for (let i = deck.length - 1; i >= 1; i--) {
    const j = await uniform(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

const isKing = (c) => c[0] === 'K';

/** What the player saw right after the deal, for each variant (the parts of the view a deal fixes). */
export function firstLayout(variant, deck) {
  const d = [...deck];
  switch (variant) {
    case 'royal-retinue':
    case 'royal-retinue-aces': {
      const aces = variant === 'royal-retinue-aces' ? d.filter((c) => c[0] === 'A') : [];
      const rest = variant === 'royal-retinue-aces' ? d.filter((c) => c[0] !== 'A') : d;
      const columns = [[rest.splice(rest.findIndex(isKing), 1)[0]]];
      for (const c of rest) {
        if (isKing(c) && columns.length < 8) columns.push([c]);
        else columns[columns.length - 1].push(c);
      }
      return { columns, foundations: aces.length ? aces.map((a) => [a]) : null };
    }
    case 'royal-retinue-kings-last': {
      const columns = [[]];
      let last = null;
      for (const c of d) {
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
      for (const c of d) {
        if (isKing(c)) columns.push([c]);
        else columns[columns.length - 1].push(c);
      }
      return { columns };
    }
    case 'tribunal':
    case 'picture-gallery': {
      const queens = d.filter((c) => c[0] === 'Q');
      const rest = d.filter((c) => c[0] !== 'Q');
      return { columns: [[rest.find(isKing)]], fixed: queens };
    }
    case 'captives': {
      const table = d.slice(7, 39);
      const columns = [...Array(8).keys()].map((col) => table.filter((_, i) => i % 8 === col));
      return { columns };
    }
    case 'sultan-36':
    case 'sultan-52': {
      let aceOut = false;
      const rest = [];
      for (const c of d) {
        if (isKing(c)) continue;
        if (c === 'AH' && !aceOut) aceOut = true;
        else rest.push(c);
      }
      return { cells: rest.slice(0, variant === 'sultan-36' ? 6 : 8) };
    }
    default:
      return null;
  }
}

/** Compare the recomputed first layout with the view the page saved at the deal. */
export async function checkDeal(seed, variant, size, firstView) {
  const layout = firstLayout(variant, await shuffledDeck(seed, variant, size));
  if (!layout) return { ok: false, reason: 'unknown-variant' };
  if (!firstView) return { ok: null, reason: 'no-first-view' };
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
