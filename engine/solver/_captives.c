/* The captives late scans (search.LATE_SCORED: playouts.Playouts and search._DepthFirst by kind) in C.
 *
 * The same scans step for step: the same children in Captives.successors' order, settled by the same safe moves,
 * the same scores and kinds, the same draws from CPython's Mersenne Twister, and a seen set that compares the
 * profile's key exactly (its bytes, not a hash); so after any number of positions a scan here has expanded as many
 * positions and found the same line as its Python twin. Driven slice by slice from compiled_captives.py.
 *
 * This file is the entry and includes the parts once, in this order: one translation unit, as the compiler inlines
 * the hot steps across them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_captives.h"
#include "_kingchain_random.h"
#include "_captives_position.h"
#include "_captives_seen.h"
#include "_captives_scan.h"

static cp_scan *scan_new(const cp_position *root, uint32_t seed, int *err) {
    *err = CP_BAD;
    Pos p;
    if (root == NULL || !read_position(root, &p)) return NULL;
    *err = CP_NOMEM;
    cp_scan *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    if (!seen_init(&s->seen)) {
        cp_free(s);
        return NULL;
    }
    s->root = p;
    mt_seed(&s->rng, seed);
    return s;
}

cp_scan *cp_playouts(const cp_position *root, uint32_t seed, int noise, double stock_last, int by_kind,
                     double next_kind, int *err) {
    /* randrange(noise) needs a noise of 1 at least when it is drawn (the score, not by kind) */
    if ((!by_kind && next_kind == 0.0 && noise < 1) || noise < 0 || !(stock_last >= 0.0 && stock_last <= 1.0) ||
        !(next_kind >= 0.0 && next_kind <= 1.0)) {
        *err = CP_BAD;
        return NULL;
    }
    cp_scan *s = scan_new(root, seed, err);
    if (s == NULL) return NULL;
    s->noise = noise;
    s->stock_last = stock_last;
    s->by_kind = by_kind != 0;
    s->next_kind = next_kind;
    if (!restart(s)) {
        cp_free(s);
        return NULL;
    }
    return s;
}

cp_scan *cp_depth_first(const cp_position *root, uint32_t seed, int noise, int by_kind, int on_visit, int *err) {
    if (noise < 0) {
        *err = CP_BAD;
        return NULL;
    }
    cp_scan *s = scan_new(root, seed, err);
    if (s == NULL) return NULL;
    s->depth_first = 1;
    s->noise = noise;
    s->by_kind = by_kind != 0;
    s->on_visit = on_visit != 0;
    if (seen_add(&s->seen, &s->root, s->key) < 0 || !push_level(s, &s->root)) {
        cp_free(s);
        return NULL;
    }
    return s;
}

int cp_run(cp_scan *s, long long n) {
    if (s == NULL || n < 0) return CP_BAD;
    if (s->depth_first) return depth_first_run(s, n);
    return s->next_kind != 0.0 ? playouts_run_pool(s, n) : playouts_run(s, n);
}

long long cp_expanded(const cp_scan *s) { return s == NULL ? 0 : s->expanded; }

int cp_line(const cp_scan *s, const uint8_t **steps) {
    *steps = (const uint8_t *)s->line;
    return (int)s->nline;
}

void cp_free(cp_scan *s) {
    if (s == NULL) return;
    seen_free(&s->seen);
    free(s->line);
    free(s->ends);
    free(s->lv_pos);
    free(s->lv_begin);
    free(s->entries);
    free(s);
}

/* -- for the tests: one position's children as the scans see them ------------------------------------------------ */

static void describe(const Pos *p, const Moves *mv, int kind, cp_child *out) {
    memcpy(out->steps, mv->m, (size_t)mv->n * sizeof(Move));
    out->nsteps = mv->n;
    out->kind = kind;
    out->score = score_of(p);
    out->won = is_won(p);
    out->key_len = key_of(p, out->key);
}

int cp_children(const cp_position *pos, cp_child *out, int max) {
    Pos p;
    Move kids[MAX_KIDS];
    if (pos == NULL || !read_position(pos, &p)) return CP_BAD;
    Safe sf = {.valid = 0};
    int free = free_columns(&p), k = gen_moves(&p, kids);
    if (k > max) return CP_BAD;
    for (int j = 0; j < k; j++) {
        Pos child = p;
        Moves mv = {{kids[j]}, 1};
        apply(&child, kids[j]);
        int kind = kind_of(&child, kids[j], free);
        settle(&child, &sf, &mv);
        describe(&child, &mv, kind, &out[j]);
    }
    return k;
}

int cp_settle(const cp_position *pos, cp_child *out) {
    Pos p;
    Moves mv = {{{0}}, 0};
    Safe sf = {.valid = 0};
    if (pos == NULL || !read_position(pos, &p)) return CP_BAD;
    settle(&p, &sf, &mv);
    describe(&p, &mv, -1, out);
    return mv.n;
}
