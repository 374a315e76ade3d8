/* Part of _captives.c (included once, in order, as one translation unit): the two late scans, playouts.Playouts and
 * search._DepthFirst, step for step (the same children in the same order, the same draws from the generator). */
#ifndef PATIENCE_CAPTIVES_SCAN_H
#define PATIENCE_CAPTIVES_SCAN_H

struct cp_scan {
    int depth_first;
    long long expanded;
    Rng rng;
    int noise, by_kind, on_visit;
    double stock_last, next_kind;
    Pos root;
    Seen seen;
    /* the line: its steps, and where each part (a move and its safe moves) ends */
    Move *line;
    size_t nline, line_cap;
    size_t *ends;
    size_t nends, ends_cap;
    /* the playouts: where this one is */
    Pos pos;
    /* the depth-first scan: each level's position and where its children begin in `entries` (a level's children
     * run to the next level's beginning, the top level's to nentries), worst first: the best is popped */
    Pos *lv_pos;
    size_t *lv_begin;
    size_t nlv, lv_cap, begin_cap;
    Move *entries;
    size_t nentries, entries_cap;
    /* scratch: one position's moves, their kinds and scores */
    Move kids[MAX_KIDS];
    int kind[MAX_KIDS], score[MAX_KIDS], order[MAX_KIDS];
    uint8_t key[CP_KEY_MAX];
    Safe safe;
};

/* grow *buf (of *cap items of `size` bytes) to hold `need`; 0 out of memory */
static int grow(void **buf, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 1;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need) cap2 *= 2;
    void *b = realloc(*buf, cap2 * size);
    if (b == NULL) return 0;
    *buf = b;
    *cap = cap2;
    return 1;
}

static int line_push(cp_scan *s, const Moves *mv) {
    if (!grow((void **)&s->line, &s->line_cap, s->nline + (size_t)mv->n, sizeof(Move)) ||
        !grow((void **)&s->ends, &s->ends_cap, s->nends + 1, sizeof(size_t)))
        return 0;
    memcpy(s->line + s->nline, mv->m, (size_t)mv->n * sizeof(Move));
    s->nline += (size_t)mv->n;
    s->ends[s->nends++] = s->nline;
    return 1;
}

static void line_pop(cp_scan *s) {
    s->nends--;
    s->nline = s->nends ? s->ends[s->nends - 1] : 0;
}

/* -- the playouts ----------------------------------------------------------------------------------------------- */

static int restart(cp_scan *s) {
    s->pos = s->root;
    seen_clear(&s->seen);
    s->nline = s->nends = 0;
    return seen_add(&s->seen, &s->root, s->key) >= 0;
}

/* the step to the chosen child: its safe moves, into the line and the seen set */
static int playout_step(cp_scan *s, Move m) {
    Moves mv = {{m}, 1};
    apply(&s->pos, m);
    settle(&s->pos, &s->safe, &mv);
    if (seen_add(&s->seen, &s->pos, s->key) < 0 || !line_push(s, &mv)) return CP_NOMEM;
    return is_won(&s->pos) ? CP_WON : CP_MORE;
}

/* Playouts.run: the child of the best score (or kind) blurred by noise, the stock last at times */
static int playouts_run(cp_scan *s, long long n) {
    for (long long i = 0; i < n; i++) {
        s->expanded++;
        int later = s->stock_last != 0.0 && mt_random(&s->rng) < s->stock_last ? 1000 : 0;
        int free = s->by_kind ? free_columns(&s->pos) : 0;
        int k = gen_moves(&s->pos, s->kids), best = -1, best_score = 0;
        for (int j = 0; j < k; j++) {
            Pos child = s->pos;
            Move m = s->kids[j];
            apply(&child, m);
            int kind = s->by_kind ? kind_of(&child, m, free) : 0;
            settle(&child, &s->safe, NULL);
            if (seen_has(&s->seen, &child, s->key)) continue;
            /* by kind: the kinds 4 apart and the draw up to 6, so that the next kind now and then comes first */
            int score = s->by_kind ? 4 * kind + (int)mt_below(&s->rng, 6)
                                   : score_of(&child) + (int)mt_below(&s->rng, (uint32_t)s->noise);
            if (later && (m.type == CP_STOCK || m.type == CP_REDEAL)) score += later;
            if (best < 0 || score < best_score) {
                best = j;
                best_score = score;
            }
        }
        if (best < 0) {
            if (!restart(s)) return CP_NOMEM;
            continue;
        }
        int r = playout_step(s, s->kids[best]);
        if (r != CP_MORE) return r;
    }
    return CP_MORE;
}

/* Playouts._run_pool: every child of the best kind, and each of the next kind by chance, equally likely */
static int playouts_run_pool(cp_scan *s, long long n) {
    for (long long i = 0; i < n; i++) {
        s->expanded++;
        int free = free_columns(&s->pos);
        int k = gen_moves(&s->pos, s->kids), found = 0, best = 99;
        for (int j = 0; j < k; j++) {
            Pos child = s->pos;
            Move m = s->kids[j];
            apply(&child, m);
            int kind = kind_of(&child, m, free);
            settle(&child, &s->safe, NULL);
            if (seen_has(&s->seen, &child, s->key)) continue;
            s->kind[found] = kind;
            s->order[found++] = j;
            if (kind < best) best = kind;
        }
        if (!found) {
            if (!restart(s)) return CP_NOMEM;
            continue;
        }
        int pool = 0;
        for (int j = 0; j < found; j++)
            if (s->kind[j] == best || (s->kind[j] == best + 1 && mt_random(&s->rng) < s->next_kind))
                s->order[pool++] = s->order[j];
        int r = playout_step(s, s->kids[s->order[mt_below(&s->rng, (uint32_t)pool)]]);
        if (r != CP_MORE) return r;
    }
    return CP_MORE;
}

/* -- the depth-first scan ------------------------------------------------------------------------------------- */

/* _DepthFirst._children: a level for p, its children not seen yet, worst first */
static int push_level(cp_scan *s, const Pos *p) {
    int free = s->by_kind ? free_columns(p) : 0;
    int k = gen_moves(p, s->kids), kept = 0;
    for (int j = 0; j < k; j++) {
        Pos child = *p;
        Move m = s->kids[j];
        apply(&child, m);
        int kind = s->by_kind ? kind_of(&child, m, free) : 0;
        settle(&child, &s->safe, NULL);
        if (s->on_visit) {
            if (seen_has(&s->seen, &child, s->key)) continue;
        } else {
            int r = seen_add(&s->seen, &child, s->key);
            if (r < 0) return 0;
            if (r == 0) continue;
        }
        int score = s->by_kind ? kind : score_of(&child);
        if (s->noise) score += (int)mt_below(&s->rng, (uint32_t)s->noise);
        s->score[j] = score;
        s->order[kept++] = j;
    }
    /* Python sorts (-score, -index) and pops the last: here the same order, the highest score first, and among
     * equal scores the last generated first */
    for (int a = 1; a < kept; a++) {
        int j = s->order[a], b = a;
        while (b > 0) {
            int i = s->order[b - 1];
            if (s->score[i] > s->score[j] || (s->score[i] == s->score[j] && i > j)) break;
            s->order[b] = i;
            b--;
        }
        s->order[b] = j;
    }
    if (!grow((void **)&s->lv_pos, &s->lv_cap, s->nlv + 1, sizeof(Pos)) ||
        !grow((void **)&s->lv_begin, &s->begin_cap, s->nlv + 1, sizeof(size_t)))
        return 0;
    if (!grow((void **)&s->entries, &s->entries_cap, s->nentries + (size_t)kept, sizeof(Move))) return 0;
    s->lv_pos[s->nlv] = *p;
    s->lv_begin[s->nlv++] = s->nentries;
    for (int a = 0; a < kept; a++) s->entries[s->nentries++] = s->kids[s->order[a]];
    return 1;
}

/* _DepthFirst.run */
static int depth_first_run(cp_scan *s, long long n) {
    long long done = 0;
    while (done < n) {
        while (s->nlv && s->nentries == s->lv_begin[s->nlv - 1]) {
            s->nlv--;
            if (s->nends) line_pop(s);
        }
        if (!s->nlv) return CP_EXHAUSTED;
        Move m = s->entries[--s->nentries];
        Pos child = s->lv_pos[s->nlv - 1];
        Moves mv = {{m}, 1};
        apply(&child, m);
        settle(&child, &s->safe, &mv);
        if (s->on_visit) {
            int r = seen_add(&s->seen, &child, s->key);
            if (r < 0) return CP_NOMEM;
            if (r == 0) continue;
        }
        done++;
        s->expanded++;
        if (!line_push(s, &mv)) return CP_NOMEM;
        if (is_won(&child)) return CP_WON;
        if (!push_level(s, &child)) return CP_NOMEM;
    }
    return CP_MORE;
}

#endif
