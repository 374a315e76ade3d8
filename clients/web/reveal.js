// After a game ends the server reveals its seed; deal.js re-deals it here, so the cards that were hidden (the
// stock's order, face-down captives) can be shown face up. Only the deal is recomputed, never the play: a
// face-down captive never moved, and a stock that was never turned over is the tail of the stock as dealt.

import { shuffledDeck } from './deal.js';

const rankOf = (c) => c[0];

/** The hidden parts of the first layout, in deal order: {captives: [...7], stock: [...] (index 0 dealt next)}. */
export function hiddenAtDeal(variant, family, deck) {
  if (family === 'captives') return { captives: deck.slice(0, 7), stock: deck.slice(39) };
  if (family === 'salic-law') {
    const rest = deck.filter((c) => rankOf(c) !== 'Q');
    rest.splice(rest.findIndex((c) => rankOf(c) === 'K'), 1);
    return { captives: [], stock: rest };
  }
  if (family === 'sultan') {
    let aceOut = false;
    const rest = [];
    for (const c of deck) {
      if (rankOf(c) === 'K') continue;
      if (c === 'AH' && !aceOut) aceOut = true;
      else rest.push(c);
    }
    return { captives: [], stock: rest.slice(variant === 'sultan-36' ? 6 : 8) };
  }
  return { captives: [], stock: [] }; // the king-chain games hide nothing
}

/**
 * What the finished ``view`` hid, from the revealed seed: the face-down captives by slot, and the stock's
 * cards in order when its order is still the deal's (no redeal gathered it); ``asDealt`` is the hidden part of
 * the deal for the panel.
 */
export async function revealHidden(seedBytes, variant, deckSize, view) {
  const deck = await shuffledDeck(seedBytes, variant.id, deckSize);
  const dealt = hiddenAtDeal(variant.id, variant.family, deck);
  const captives = (view.captives || []).map((c, i) => (c === '??' ? dealt.captives[i] : null));
  const count = view.stockCount || 0;
  const untouched = !(view.redealsUsed > 0);
  const stock = untouched && count > 0 ? dealt.stock.slice(dealt.stock.length - count) : null;
  return { captives, stock, asDealt: dealt };
}
