// After a game ends the server reveals its seed; deal.js re-deals it here, so the cards that were hidden (the
// stock's order, face-down captives) can be shown face up. Only the deal is recomputed, never the play: a
// face-down captive never moved, and a stock that was never turned over is the tail of the stock as dealt.

import { dealCards } from './deal.js';

/**
 * The hidden parts of the first layout, in deal order: {captives: [...7], stock: [...] (index 0 dealt next)}, from
 * deal.js's ``rest``: the shuffled list without the whole sets and the single card the variant pulls out (deal-v2,
 * steps 6 and 7), in its order.
 */
export function hiddenAtDeal(variant, family, rest) {
  if (family === 'captives') return { captives: rest.slice(0, 7), stock: rest.slice(39) };
  if (family === 'salic-law') return { captives: [], stock: rest.slice() };
  if (family === 'sultan') return { captives: [], stock: rest.slice(variant === 'sultan-36' ? 6 : 8) };
  return { captives: [], stock: [] }; // the king-chain games hide nothing
}

/**
 * What the finished ``view`` hid, from the revealed seed: the face-down captives by slot, and the stock's
 * cards in order when its order is still the deal's (no redeal gathered it); ``asDealt`` is the hidden part of
 * the deal for the panel.
 */
export async function revealHidden(seedBytes, variant, deckSize, view) {
  const { rest } = await dealCards(seedBytes, variant.id, deckSize);
  const dealt = hiddenAtDeal(variant.id, variant.family, rest);
  const captives = (view.captives || []).map((c, i) => (c === '??' ? dealt.captives[i] : null));
  const count = view.stockCount || 0;
  const untouched = !(view.redealsUsed > 0);
  const stock = untouched && count > 0 ? dealt.stock.slice(dealt.stock.length - count) : null;
  return { captives, stock, asDealt: dealt };
}
