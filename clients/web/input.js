// How a player points at the table: mouse, pen or finger through pointer events (the table sets touch-action,
// so a finger's drag moves a card instead of scrolling the page), and the keyboard. A press that travels
// becomes a drag with a full-size ghost of the cards being carried; a press that does not is a click or tap,
// and the controller turns clicks into moves: tap-tap (card, then destination), and the same card twice in a
// row (a double-click, a double-tap) sends it to a foundation.

const DRAG_START = 6; // px a press must travel before it becomes a drag

/**
 * @param {HTMLElement} table
 * @param {object} c  the controller: activate(node, multi), select(pile, pos), deselect(), sendHome(pile?),
 *   stretch(delta), undo(), hint(), autoPlay(), pileCards(id), isColumn(id), selection(), playable()
 */
export function attachInput(table, c) {
  let press = null;

  function endDrag() {
    if (press && press.drag) {
      press.drag.ghost.remove();
      for (const card of press.drag.moving) card.classList.remove('dragging');
      document.body.classList.remove('is-dragging');
    }
  }

  function startDrag(e) {
    if (!press.card || !press.pileEl || press.pileEl.dataset.pile === 'stock') return false;
    const id = press.pileEl.dataset.pile;
    const pos = c.isColumn(id) ? Number(press.card.dataset.pos) : c.pileCards(id).length - 1;
    c.select(id, pos);
    if (!c.selection()) return false;
    // The ghost: copies of the carried cards at their size on the table, fanned as in the column.
    const ghost = document.createElement('div');
    ghost.className = 'ghost';
    const style = getComputedStyle(press.pileEl);
    ghost.style.setProperty('--cw', getComputedStyle(table).getPropertyValue('--cw'));
    // The carried cards are a run: fanned as the run is on the table.
    ghost.style.setProperty('--fan', style.getPropertyValue('--run-fan') || style.getPropertyValue('--fan') || '20px');
    const moving = [...press.pileEl.querySelectorAll('.card[data-pos]')].filter((card) => Number(card.dataset.pos) >= pos);
    moving.forEach((card, k) => {
      const copy = card.cloneNode(true);
      copy.classList.remove('selected', 'top');
      copy.style.top = `calc(${k} * var(--fan))`;
      copy.style.left = '0';
      ghost.append(copy);
      card.classList.add('dragging');
    });
    const box = press.card.getBoundingClientRect();
    press.drag = { ghost, dx: press.x - box.left, dy: press.y - box.top, moving };
    document.body.append(ghost);
    document.body.classList.add('is-dragging');
    return true;
  }

  table.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || !c.playable()) return;
    const card = e.target.closest('.card[data-card]');
    const pileEl = e.target.closest('[data-pile]');
    const multi = e.shiftKey || e.ctrlKey || e.metaKey;
    press = { x: e.clientX, y: e.clientY, node: e.target, card, pileEl, drag: null, id: e.pointerId, multi, type: e.pointerType };
    if (e.pointerType !== 'mouse') e.preventDefault(); // no emulated mouse events, no text selection
  });

  window.addEventListener(
    'pointermove',
    (e) => {
      if (!press || press.id !== e.pointerId) return;
      if (!press.drag) {
        if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_START) return;
        if (!startDrag(e)) {
          press = null;
          return;
        }
      }
      const { ghost, dx, dy } = press.drag;
      ghost.style.transform = `translate(${e.clientX - dx}px, ${e.clientY - dy}px)`;
      e.preventDefault();
    },
    { passive: false },
  );

  window.addEventListener('pointerup', (e) => {
    if (!press || press.id !== e.pointerId) return;
    const p = press;
    endDrag();
    press = null;
    if (p.drag) {
      const under = document.elementFromPoint(e.clientX, e.clientY);
      const drop = under && under.closest('#table [data-pile]');
      const sel = c.selection();
      if (drop && sel && drop.dataset.pile !== sel.pile) c.activate(drop);
      else c.deselect();
      return;
    }
    c.activate(p.node, p.multi);
  });

  window.addEventListener('pointercancel', () => {
    endDrag();
    press = null;
  });

  table.addEventListener('keydown', (e) => {
    const pileEl = e.target.closest('[data-pile]');
    if (!pileEl) return;
    const id = pileEl.dataset.pile;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (e.shiftKey && c.isColumn(id)) {
        c.activate(pileEl, true);
        return;
      }
      const top = pileEl.querySelector('.card.top[data-card]');
      c.activate(c.selection() || !top ? pileEl : top);
    } else if (e.key === 'f' || e.key === 'F') {
      e.preventDefault();
      const sel = c.selection();
      c.sendHome(sel && sel.pile === id ? null : id);
    } else if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && c.selection() && c.selection().pile === id) {
      e.preventDefault();
      c.stretch(e.key === 'ArrowUp' ? 1 : -1);
    } else if (e.key.startsWith('Arrow')) {
      e.preventDefault();
      const piles = [...table.querySelectorAll('.pile[data-pile][tabindex]')];
      const i = piles.indexOf(pileEl);
      const step = e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 1;
      piles[(i + step + piles.length) % piles.length]?.focus();
    }
  });

  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') c.deselect();
    // H for a hint, A for auto-play: anywhere on the page but in a form field or an open dialog.
    const typing = e.target.closest?.('input, select, textarea, dialog[open]');
    if (!typing && !e.ctrlKey && !e.metaKey && !e.altKey && (e.key === 'h' || e.key === 'H')) c.hint();
    if (!typing && !e.ctrlKey && !e.metaKey && !e.altKey && (e.key === 'a' || e.key === 'A')) c.autoPlay();
    const ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && ((e.key === 'y' || e.key === 'Y') || (e.shiftKey && (e.key === 'z' || e.key === 'Z')))) {
      e.preventDefault();
      c.redo();
    } else if (ctrl && e.key === 'z') {
      e.preventDefault();
      c.undo();
    }
  });
}
