// When a game can finish on its own: no card is hidden any more (no stock, no face-down card or captive) and
// every card left off the foundations goes home by foundation moves alone. The page checks that on the view it
// holds, by sending free cards home while any fits, under each family's foundation rule; then nothing the
// player could still do matters, and the page plays the rest (docs/web.md, "Finishing on its own").

const KING_CHAIN = 'A23456789TJQK';
const SALIC = 'A23456789TJ';
const CAPTIVES = 'KA23456789TJQ';
const SULTAN = { 72: 'KA6789TJQ', 104: 'KA23456789TJQ' };

/** The rank that goes next on ``pile`` in this family (null: nothing more), and whether it must follow suit. */
function next(pile, family, deckSize) {
  const order = {
    'king-chain': KING_CHAIN,
    'salic-law': SALIC,
    captives: CAPTIVES,
    sultan: SULTAN[deckSize] || SULTAN[104],
  }[family];
  if (!order) return null;
  if (!pile.length) {
    // An empty pile takes the first rank (Sultan's foundations are never empty: they start dealt).
    return family === 'sultan' ? null : { rank: order[0], suit: null };
  }
  const top = pile[pile.length - 1];
  const i = order.indexOf(top[0]);
  if (i < 0 || i + 1 >= order.length) return null;
  return { rank: order[i + 1], suit: family === 'salic-law' ? null : top[1] };
}

function fits(pile, card, family, deckSize) {
  const want = next(pile, family, deckSize);
  return Boolean(want) && want.rank === card[0] && (want.suit === null || want.suit === card[1]);
}

/**
 * The moves that bring every card left home by foundation moves alone ("3-f5", "r2-f1", "w-f8", "c4-f2", and
 * "3-k" for a Captives king), or null when some card would be left, or something is still hidden.
 */
export function homeLine(view, family, deckSize = 104) {
  if (!view || (view.stockCount || 0) > 0) return null;
  const columns = (view.columns || []).map((c) => [...(c.cards || [])]);
  const captives = view.captives || [];
  if (columns.some((c) => c.includes('??')) || captives.includes('??')) return null;
  const foundations = (view.foundations || []).map((f) => [...(f.cards || [])]);
  // Salic Law's kings never move: the game is won with them alone in their columns.
  const needed = family === 'salic-law' ? (card) => card[0] !== 'K' : () => true;
  // Every place a card waits, its free card last (the waste's top is its last card), with its pile id.
  const stacks = [
    ...columns.map((cards, i) => ({ id: String(i + 1), cards })),
    ...(view.cells || []).map((c, i) => ({ id: `r${i + 1}`, cards: c ? [c] : [] })),
    ...captives.map((c, i) => ({ id: `c${i + 1}`, cards: c ? [c] : [] })),
    { id: 'w', cards: [...(view.waste || [])] },
  ];
  const line = [];
  let moved = true;
  while (moved) {
    moved = false;
    for (const { id, cards } of stacks) {
      while (cards.length && needed(cards[cards.length - 1])) {
        const card = cards[cards.length - 1];
        const i = foundations.findIndex((f) => fits(f, card, family, deckSize));
        if (i < 0) break;
        // An empty king-row slot takes a king by the king row ("k"): the leftmost empty one, as here.
        line.push(family === 'captives' && !foundations[i].length ? `${id}-k` : `${id}-f${i + 1}`);
        foundations[i].push(cards.pop());
        moved = true;
      }
    }
  }
  return stacks.every(({ cards }) => !cards.some(needed)) ? line : null;
}

/** Whether every card left can go home by foundation moves alone, with nothing hidden. */
export function allCanGoHome(view, family, deckSize = 104) {
  return homeLine(view, family, deckSize) !== null;
}
