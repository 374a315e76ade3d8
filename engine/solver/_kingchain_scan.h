/* Part of _kingchain.c (which includes its parts once, in order, as one translation unit, so that the compiler
 * inlines across them as in one file): a scan's turn: depth-first (kingchain.Scan) and best-first. */
#ifndef PATIENCE_KINGCHAIN_SCAN_H
#define PATIENCE_KINGCHAIN_SCAN_H

typedef struct {
    Pos pos;     /* the position whose children these are */
    Move *kids;  /* in the order they are taken */
    int nk, next, cap;
} Level;

typedef struct {
    kc_scan_config cfg;
    int complete, idle, has_rng;
    Rng rng;
    Seen seen;
    Level *lv;
    int depth, lvcap; /* levels in use: lv[0 .. depth - 1] */
    long long expanded;
    int kinds[NKINDS], nkinds; /* the kinds tried, ascending (scored scans) */
    BestFirst bf;              /* a best-first scan's queue and positions (cfg.best_first > 0) */
} Scan;

typedef struct {
    int score, idx;
    Move m;
} Ranked;

typedef struct {
    Moves moves;
    Ranked ranked[NKINDS * MOVE_CAP];
    Move batch[NKINDS * MOVE_CAP];
    int runs;
} Work;

static int cmp_ranked(const void *a, const void *b) {
    const Ranked *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static int level_reserve(Level *l, int n) {
    if (n <= l->cap) return 1;
    int cap = l->cap ? l->cap : 16;
    while (cap < n) cap *= 2;
    Move *k = realloc(l->kids, (size_t)cap * sizeof(Move));
    if (k == NULL) return 0;
    l->kids = k;
    l->cap = cap;
    return 1;
}

/* A child just generated: 1 to take it, 0 if seen, -1 (memory). A scan that marks positions when generated
 * adds it to its table now; one that marks them when visited only asks (scan_run adds it when it gets there). */
static inline int sc_mark(Scan *sc, uint64_t key) {
    if (sc->cfg.on_visit) return !seen_has(&sc->seen, key);
    return seen_add(&sc->seen, key);
}

/* Push a level for `pos` with its children not seen before, in the order they are taken: 0 or -1 (memory). */
static int push_children(Scan *sc, Work *w, const Pos *pos) {
    if (sc->depth == sc->lvcap) {
        int cap = sc->lvcap ? sc->lvcap * 2 : 64;
        Level *lv = realloc(sc->lv, (size_t)cap * sizeof(Level));
        if (lv == NULL) return -1;
        memset(lv + sc->lvcap, 0, (size_t)(cap - sc->lvcap) * sizeof(Level));
        sc->lv = lv;
        sc->lvcap = cap;
    }
    Level *l = &sc->lv[sc->depth++];
    l->pos = *pos;
    Pos *base = &l->pos;
    pos_key(base); /* brings its columns' hashes up to date, once for all the children */
    if (sc->cfg.scored) pos_score(base, sc->cfg.weights); /* and their disorder */
    l->nk = l->next = 0;
    gen_moves(base, w->runs, &w->moves);
    Moves *L = &w->moves;
    Pos child;
    if (sc->cfg.scored) {
        int nr = 0;
        for (int q = 0; q < sc->nkinds; q++) {
            int kind = sc->kinds[q];
            for (int e = 0; e < L->n[kind]; e++) {
                child = *base;
                apply_move(&child, &L->m[kind][e], NULL);
                settle(&child, NULL);
                int added = sc_mark(sc, pos_key(&child));
                if (added < 0) return -1;
                if (!added) continue;
                int noise = sc->has_rng ? (int)mt_below(&sc->rng, (uint32_t)sc->cfg.scored) : 0;
                Ranked *r = &w->ranked[nr];
                r->score = pos_score(&child, sc->cfg.weights) + noise;
                r->idx = nr;
                r->m = L->m[kind][e];
                nr++;
            }
        }
        qsort(w->ranked, (size_t)nr, sizeof(Ranked), cmp_ranked);
        if (!level_reserve(l, nr)) return -1;
        for (int q = 0; q < nr; q++) l->kids[q] = w->ranked[q].m;
        l->nk = nr;
        return 0;
    }
    int g = 0;
    while (g < sc->cfg.order_len) {
        int nb = 0;
        for (; g < sc->cfg.order_len && sc->cfg.order[g] != KC_GROUP_END; g++) {
            int kind = sc->cfg.order[g];
            memcpy(w->batch + nb, L->m[kind], (size_t)L->n[kind] * sizeof(Move));
            nb += L->n[kind];
        }
        g++; /* the group's end */
        if (sc->has_rng && nb > 1) {
            for (int i = nb - 1; i > 0; i--) {
                int j = (int)mt_below(&sc->rng, (uint32_t)(i + 1));
                Move tmp = w->batch[i];
                w->batch[i] = w->batch[j];
                w->batch[j] = tmp;
            }
        }
        if (!level_reserve(l, l->nk + nb)) return -1;
        for (int e = 0; e < nb; e++) {
            child = *base;
            apply_move(&child, &w->batch[e], NULL);
            settle(&child, NULL);
            int added = sc_mark(sc, pos_key(&child));
            if (added < 0) return -1;
            if (added) l->kids[l->nk++] = w->batch[e];
        }
    }
    return 0;
}

enum { RUN_MORE, RUN_WON, RUN_EXHAUSTED, RUN_IDLE, RUN_OOM };

/* A best-first scan's evaluation of a settled position (lower is taken first): best_first 1 and 2 the score,
 * 3 and 4 the cards not home and the cards under the runs at the top of the columns (against the root's). */
static long long bf_eval(Scan *sc, Pos *p) {
    if (sc->cfg.best_first <= 2) return pos_score(p, sc->cfg.weights);
    return 5LL * (104 - fnd_sum(p->fnd)) * sc->bf.under0 + 3LL * 104 * pos_under(p);
}

/* Queue the children of `base` (the expanded position `parent`) not seen before, in the order of the kinds: 0, or
 * -1 (memory). A best-first scan marks a position seen when it generates it. */
static int bf_children(Scan *sc, Work *w, Pos *base, uint32_t parent) {
    int oldest = sc->cfg.best_first % 2;
    pos_key(base);
    if (sc->cfg.best_first <= 2) pos_score(base, sc->cfg.weights);
    gen_moves(base, w->runs, &w->moves);
    Moves *L = &w->moves;
    Pos child;
    for (int g = 0; g < sc->cfg.order_len; g++) {
        int kind = sc->cfg.order[g];
        if (kind == KC_GROUP_END) continue;
        for (int e = 0; e < L->n[kind]; e++) {
            child = *base;
            apply_move(&child, &L->m[kind][e], NULL);
            settle(&child, NULL);
            int added = seen_add(&sc->seen, pos_key(&child));
            if (added < 0) return -1;
            if (!added) continue;
            BItem it;
            it.score = bf_eval(sc, &child);
            it.seq = sc->bf.seq++;
            it.parent = parent;
            it.m = L->m[kind][e];
            if (bf_push(&sc->bf, &it, oldest) < 0) return -1;
        }
    }
    return 0;
}

static int bf_start(Scan *sc, Work *w, const Pos *root) {
    Pos base = *root;
    sc->bf.under0 = pos_under(&base);
    if (sc->bf.under0 == 0) sc->bf.under0 = 1;
    if (bf_keep(&sc->bf, &base, UINT32_MAX, NULL) < 0) return -1;
    return bf_children(sc, w, &base, 0);
}

/* Expand up to n positions, the best-evaluated first (kingchain_bestfirst.BestFirst.run). */
static int bf_run(Scan *sc, Work *w, long long n) {
    int oldest = sc->cfg.best_first % 2;
    for (long long it = 0; it < n; it++) {
        if (sc->bf.hn == 0) {
            if (sc->complete) return RUN_EXHAUSTED;
            sc->idle = 1;
            return RUN_IDLE;
        }
        BItem item = bf_pop(&sc->bf, oldest);
        Pos child;
        unpack(&sc->bf.nodes[item.parent], &child);
        apply_move(&child, &item.m, NULL);
        settle(&child, NULL);
        sc->expanded++;
        if (is_won(&child)) {
            sc->bf.won = item;
            return RUN_WON;
        }
        long long idx = bf_keep(&sc->bf, &child, item.parent, &item.m);
        if (idx < 0 || idx >= UINT32_MAX || bf_children(sc, w, &child, (uint32_t)idx) < 0) return RUN_OOM;
    }
    return RUN_MORE;
}

/* Hands a won line's steps to out (ends: where each entry ends), or frees them if the buffer ran out of memory. */
static int hand_over(StepBuf *sb, int *ends, int nentries, kc_result *out) {
    if (sb->oom) {
        free(sb->s);
        free(ends);
        return -1;
    }
    out->steps = sb->s;
    out->nsteps = sb->n;
    out->entry_ends = ends;
    out->nentries = nentries;
    return 0;
}

/* The line of a best-first win: the moves from the root to the won position, each with its settling steps. */
static int bf_write_line(const Scan *sc, kc_result *out) {
    const BestFirst *bf = &sc->bf;
    int depth = 1;
    for (uint32_t i = sc->bf.won.parent; i != 0; i = bf->nodes[i].parent) depth++;
    const Move **path = malloc((size_t)depth * sizeof(Move *));
    int *ends = malloc((size_t)depth * sizeof(int));
    StepBuf sb = {0};
    if (path == NULL || ends == NULL) {
        free(path);
        free(ends);
        return -1;
    }
    path[depth - 1] = &bf->won.m;
    int d = depth - 2;
    for (uint32_t i = bf->won.parent; i != 0; i = bf->nodes[i].parent) path[d--] = &bf->nodes[i].m;
    Pos p;
    unpack(&bf->nodes[0], &p);
    for (d = 0; d < depth; d++) {
        apply_move(&p, path[d], &sb);
        settle(&p, &sb);
        ends[d] = sb.n;
    }
    free(path);
    return hand_over(&sb, ends, depth, out);
}

/* Expand up to n positions (Scan.run). */
static int scan_run(Scan *sc, Work *w, long long n) {
    if (sc->cfg.best_first) return bf_run(sc, w, n);
    for (long long it = 0; it < n;) {
        while (sc->depth > 0 && sc->lv[sc->depth - 1].next == sc->lv[sc->depth - 1].nk) sc->depth--;
        if (sc->depth == 0) {
            if (sc->complete) return RUN_EXHAUSTED;
            sc->idle = 1;
            return RUN_IDLE;
        }
        Level *l = &sc->lv[sc->depth - 1];
        Pos child = l->pos;
        apply_move(&child, &l->kids[l->next++], NULL);
        settle(&child, NULL);
        if (sc->cfg.on_visit) { /* a position reached again since it was generated: passed over, not counted */
            int added = seen_add(&sc->seen, pos_key(&child));
            if (added < 0) return RUN_OOM;
            if (!added) continue;
        }
        it++;
        sc->expanded++;
        if (is_won(&child)) return RUN_WON;
        if (push_children(sc, w, &child) < 0) return RUN_OOM;
    }
    return RUN_MORE;
}

static void scan_free(Scan *sc) {
    for (int i = 0; i < sc->lvcap; i++) free(sc->lv[i].kids);
    free(sc->lv);
    free(sc->seen.k);
    free(sc->bf.heap);
    free(sc->bf.nodes);
}

#endif
