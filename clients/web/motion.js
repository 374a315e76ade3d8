// Card moves animate from where each card was to where it is now (FLIP: first, last, invert, play), with the
// Web Animations API; a win sends the foundations' top cards on a little dance. Nothing moves when the player
// asks for less motion (prefers-reduced-motion), and the page never waits for an animation to end.

export const quiet = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/** Where every face-up card on the table is now, by card text (two decks: up to two places each). */
export function snapshot(table) {
  if (quiet()) return null;
  const places = new Map();
  for (const card of table.querySelectorAll('.card[data-card]')) {
    const r = card.getBoundingClientRect();
    const list = places.get(card.dataset.card) || [];
    list.push({ x: r.left, y: r.top });
    places.set(card.dataset.card, list);
  }
  return places;
}

/** Slide each card that changed place from its old place (the nearer one of the two copies). */
export function animateFrom(table, places) {
  if (!places || quiet()) return 0;
  let moved = 0;
  const cards = [...table.querySelectorAll('.card[data-card]')];
  const now = cards.map((c) => c.getBoundingClientRect());
  cards.forEach((card, i) => {
    const list = places.get(card.dataset.card);
    if (!list || !list.length) return;
    const r = now[i];
    let best = 0;
    for (let k = 1; k < list.length; k++) {
      if (Math.hypot(list[k].x - r.left, list[k].y - r.top) < Math.hypot(list[best].x - r.left, list[best].y - r.top)) best = k;
    }
    const from = list.splice(best, 1)[0];
    const dx = from.x - r.left;
    const dy = from.y - r.top;
    if (Math.hypot(dx, dy) < 3) return;
    moved += 1;
    card.animate([{ transform: `translate(${dx}px, ${dy}px)`, zIndex: 40 }, { transform: 'none', zIndex: 40 }], {
      duration: Math.min(320, 140 + Math.hypot(dx, dy) / 6),
      easing: 'cubic-bezier(.2,.7,.3,1)',
    });
  });
  table.dataset.animated = String(moved);
  return moved;
}

/** A win: the foundations' cards hop in a wave (unless the player asked for less motion). */
export function celebrate(table) {
  if (quiet()) return false;
  const tops = [...table.querySelectorAll('.pile.foundation .card')];
  tops.forEach((card, i) => {
    card.animate(
      [
        { transform: 'none' },
        { transform: 'translateY(-28px) rotate(-8deg)', offset: 0.35 },
        { transform: 'translateY(0) rotate(6deg)', offset: 0.7 },
        { transform: 'none' },
      ],
      { duration: 900, delay: i * 90, iterations: 2, easing: 'ease-in-out' },
    );
  });
  return true;
}

/** A moment for the last move's slide to be seen before the next one starts (none under reduced motion). */
export function pause() {
  return new Promise((resolve) => setTimeout(resolve, quiet() ? 0 : 180));
}
