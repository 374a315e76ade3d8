/* The salic-law late scans (search.LATE_BY_KIND for tribunal and picture-gallery) in C.
 *
 * The same scans step for step: Tribunal.successors' moves in their order, the safe moves of safe.py, the key,
 * score and kinds of profiles._salic_law and playouts.kind_of, CPython's Mersenne Twister drawn in the same order
 * (random, randrange); the transposition tables compare the profile's key exactly (as bytes). So every call
 * expands as many positions as the Python scan and answers the same, a won line step for step.
 *
 * Called through cffi (cffi_build.py); the GIL is released during calls. A scan is an object driven slice by
 * slice (sl_run), freed by sl_free. This file is the entry; it includes its parts once, in order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_salic.h"
#include "_kingchain_random.h"
#include "_salic_position.h"
#include "_salic_seen.h"
#include "_salic_scan.h"

/* A position from the caller, checked: 1, or 0 (not one this module takes). */
static int read_position(const uint8_t *cards, const int *lens, int ncols, int nstock, const uint8_t *fnd,
                         int redeals, int fresh, const sl_rules *rules, Pos *p) {
    if (lens == NULL || fnd == NULL || rules == NULL) return 0;
    if (ncols < 1 || ncols > SL_MAX_COLS || nstock < 0 || nstock > SL_MAX_CARDS) return 0;
    if (redeals < 0 || redeals > 1000 || (fresh != 0 && fresh != 1)) return 0;
    if ((rules->lone_king_rule != 0 && rules->lone_king_rule != 1) || rules->redeals_allowed < 0 ||
        rules->redeals_allowed > 1000)
        return 0;
    memset(p, 0, sizeof *p);
    int total = nstock;
    for (int i = 0; i < ncols; i++) {
        if (lens[i] < 0 || lens[i] > SL_MAX_CARDS - total) return 0;
        p->len[i] = (uint8_t)lens[i];
        total += lens[i];
    }
    if (total > 0 && cards == NULL) return 0;
    for (int j = 0; j < total; j++) {
        if (cards[j] >= 52) return 0;
        p->cards[j] = cards[j];
    }
    for (int f = 0; f < SL_FOUNDATIONS; f++) {
        if (fnd[f] > 12) return 0; /* A..J, a queen at most */
        p->fnd[f] = fnd[f];
    }
    p->ncols = (uint8_t)ncols;
    p->nstock = (uint8_t)nstock;
    p->redeals = (uint16_t)redeals;
    p->fresh = (uint8_t)fresh;
    return 1;
}

static int good_config(const sl_config *c) {
    if (c == NULL) return 0;
    if (c->scan == SL_DEPTH_FIRST) return c->on_visit == 0 || c->on_visit == 1;
    if (c->scan != SL_PLAYOUTS || c->noise < 1 || c->noise > (1 << 30) || (c->by_kind != 0 && c->by_kind != 1))
        return 0;
    return c->stock_last >= 0.0 && c->stock_last <= 1.0 && c->next_kind >= 0.0 && c->next_kind <= 1.0;
}

sl_scan *sl_new(const uint8_t *cards, const int *lens, int ncols, int nstock, const uint8_t *fnd, int redeals,
                int fresh, const sl_rules *rules, const sl_config *cfg, int *err) {
    Pos root;
    if (err == NULL) return NULL;
    if (!read_position(cards, lens, ncols, nstock, fnd, redeals, fresh, rules, &root) || !good_config(cfg)) {
        *err = SL_BAD;
        return NULL;
    }
    *err = SL_NOMEM;
    sl_scan *sc = calloc(1, sizeof *sc);
    if (sc == NULL) return NULL;
    sc->cfg = *cfg;
    sc->rules = *rules;
    sc->root = root;
    make_key(&root, &sc->root_key);
    if (!seen_init(&sc->seen)) goto fail;
    if (cfg->scan == SL_PLAYOUTS) {
        mt_seed(&sc->rng, cfg->seed);
        if (!restart(sc)) goto fail;
    } else if (seen_add(&sc->seen, &sc->root_key) < 0 || !push_level(sc, &root)) {
        goto fail;
    }
    *err = 0;
    return sc;
fail:
    sl_free(sc);
    return NULL;
}

int sl_run(sl_scan *sc, long long n) {
    if (sc->finished) return SL_FINISHED;
    int r = sc->cfg.scan == SL_PLAYOUTS ? playouts_run(sc, n) : depth_first_run(sc, n);
    if (r == SL_WON || r == SL_NOMEM) sc->finished = 1;
    return r;
}

long long sl_expanded(const sl_scan *sc) { return sc->expanded; }

const uint8_t *sl_line(const sl_scan *sc, int *nsteps) {
    *nsteps = (int)sc->nline;
    return (const uint8_t *)sc->line;
}

void sl_free(sl_scan *sc) {
    if (sc == NULL) return;
    seen_free(&sc->seen);
    free(sc->line);
    free(sc->lv);
    free(sc->nodes);
    free(sc->steps);
    free(sc);
}

int sl_children(const uint8_t *cards, const int *lens, int ncols, int nstock, const uint8_t *fnd, int redeals,
                int fresh, const sl_rules *rules, sl_child *out) {
    Pos p;
    if (out == NULL || !read_position(cards, lens, ncols, nstock, fnd, redeals, fresh, rules, &p)) return SL_BAD;
    Step moves[SL_MAX_KIDS], steps[SL_MAX_STEPS];
    int n = list_moves(&p, rules, moves), free = free_columns(&p);
    for (int i = 0; i < n; i++) {
        Pos c = p;
        apply(&c, moves[i], rules);
        sl_child *o = &out[i];
        o->kind = kind_of(&c, moves[i], free);
        steps[0] = moves[i];
        o->nsteps = 1 + settle(&c, steps + 1);
        memcpy(o->steps, steps, (size_t)o->nsteps * sizeof(Step));
        o->score = score_of(&c);
        o->won = is_won(&c);
        o->klen = key_of(&c, o->key);
        memcpy(o->fnd, c.fnd, SL_FOUNDATIONS);
    }
    return n;
}
