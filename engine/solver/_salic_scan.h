/* Part of _salic.c (included once, in order, as one translation unit): the two late scans, playouts.Playouts
 * (its three ways of drawing) and search._DepthFirst by kind, step for step and draw for draw. */
#ifndef PATIENCE_SALIC_SCAN_H
#define PATIENCE_SALIC_SCAN_H

/* random.random(): 53 bits from two draws, as CPython makes them */
static inline double mt_random(Rng *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

/* A child being weighed: the position after its move and safe moves, its kind, key and steps (kid_steps). */
typedef struct {
    Pos pos;
    Key key;
    int kind, nsteps, keep;
} Kid;

/* A depth-first level's child: its position and steps (in the scan's steps arena). */
typedef struct {
    Pos pos;
    size_t step_at;
    uint8_t nsteps;
} Node;

/* A depth-first level: its children are nodes[first .. end), taken from `next` on; `taken` was expanded last. */
typedef struct {
    size_t first, end, next, taken, steps_at;
} Level;

struct sl_scan {
    sl_config cfg;
    sl_rules rules;
    Pos root, pos; /* pos: the playout's position */
    Key root_key;
    Seen seen;
    Rng rng;
    long long expanded;
    int finished; /* won (or out of memory): the scan has ended */
    Step *line;   /* a playout's line so far; the won line */
    size_t nline, line_cap;
    Kid kids[SL_MAX_KIDS];
    Step kid_steps[SL_MAX_KIDS][SL_MAX_STEPS];
    Level *lv;
    size_t depth, lv_cap;
    Node *nodes;
    size_t nnodes, nodes_cap;
    Step *steps;
    size_t nsteps, steps_cap;
};

/* Room for n more items in a growing array: 1, or 0 (memory). */
static int reserve(void **items, size_t *cap, size_t used, size_t n, size_t size) {
    if (used + n <= *cap) return 1;
    size_t c = *cap ? *cap : 64;
    while (c < used + n) c *= 2;
    void *p = realloc(*items, c * size);
    if (p == NULL) return 0;
    *items = p;
    *cap = c;
    return 1;
}

/* The children of p (profile children, each settled by its safe moves), their kinds if asked: their count. */
static int expand(sl_scan *sc, const Pos *p, int kinds) {
    Step moves[SL_MAX_KIDS];
    int n = list_moves(p, &sc->rules, moves);
    int free = kinds ? free_columns(p) : 0;
    for (int i = 0; i < n; i++) {
        Kid *k = &sc->kids[i];
        k->pos = *p;
        apply(&k->pos, moves[i], &sc->rules);
        k->kind = kinds ? kind_of(&k->pos, moves[i], free) : 0;
        sc->kid_steps[i][0] = moves[i];
        k->nsteps = 1 + settle(&k->pos, sc->kid_steps[i] + 1);
        make_key(&k->pos, &k->key);
    }
    return n;
}

/* -- playouts ---------------------------------------------------------------------------------------- */

static int restart(sl_scan *sc) {
    sc->pos = sc->root;
    seen_clear(&sc->seen);
    sc->nline = 0;
    return seen_add(&sc->seen, &sc->root_key) >= 0;
}

/* The playout goes on to child i: SL_MORE, SL_WON or SL_NOMEM. */
static int follow(sl_scan *sc, int i) {
    Kid *k = &sc->kids[i];
    if (seen_add(&sc->seen, &k->key) < 0) return SL_NOMEM;
    if (!reserve((void **)&sc->line, &sc->line_cap, sc->nline, (size_t)k->nsteps, sizeof(Step))) return SL_NOMEM;
    memcpy(sc->line + sc->nline, sc->kid_steps[i], (size_t)k->nsteps * sizeof(Step));
    sc->nline += (size_t)k->nsteps;
    sc->pos = k->pos;
    return is_won(&sc->pos) ? SL_WON : SL_MORE;
}

/* Playouts.run's step: the unseen child of the lowest score (or kind) plus a draw, the stock put off by 1000 in
 * a share stock_last of the steps. */
static int playout_step(sl_scan *sc) {
    sc->expanded++;
    int later = sc->cfg.stock_last != 0.0 && mt_random(&sc->rng) < sc->cfg.stock_last ? 1000 : 0;
    int by_kind = sc->cfg.by_kind;
    int n = expand(sc, &sc->pos, by_kind);
    int best = -1, best_score = 0;
    for (int i = 0; i < n; i++) {
        Kid *k = &sc->kids[i];
        if (seen_has(&sc->seen, &k->key)) continue;
        int score = by_kind ? 4 * k->kind + (int)mt_below(&sc->rng, 6)
                            : score_of(&k->pos) + (int)mt_below(&sc->rng, (uint32_t)sc->cfg.noise);
        if (later && sc->kid_steps[i][0].kind != SL_STEP_HOME && sc->kid_steps[i][0].kind != SL_STEP_COLUMN)
            score += later;
        if (best < 0 || score < best_score) {
            best = i;
            best_score = score;
        }
    }
    if (best < 0) return restart(sc) ? SL_MORE : SL_NOMEM;
    return follow(sc, best);
}

/* Playouts._run_pool's step: every unseen child of the best kind, and each of the next kind with chance
 * next_kind, equally likely. */
static int pool_step(sl_scan *sc) {
    sc->expanded++;
    int n = expand(sc, &sc->pos, 1);
    int found[SL_MAX_KIDS], nfound = 0, best = 99;
    for (int i = 0; i < n; i++) {
        if (seen_has(&sc->seen, &sc->kids[i].key)) continue;
        found[nfound++] = i;
        if (sc->kids[i].kind < best) best = sc->kids[i].kind;
    }
    if (nfound == 0) return restart(sc) ? SL_MORE : SL_NOMEM;
    int pool[SL_MAX_KIDS], npool = 0;
    for (int j = 0; j < nfound; j++) {
        int kind = sc->kids[found[j]].kind;
        if (kind == best || (kind == best + 1 && mt_random(&sc->rng) < sc->cfg.next_kind)) pool[npool++] = found[j];
    }
    return follow(sc, pool[mt_below(&sc->rng, (uint32_t)npool)]);
}

static int playouts_run(sl_scan *sc, long long n) {
    for (long long i = 0; i < n; i++) {
        int r = sc->cfg.next_kind != 0.0 ? pool_step(sc) : playout_step(sc);
        if (r != SL_MORE) return r;
    }
    return SL_MORE;
}

/* -- depth-first by kind ------------------------------------------------------------------------------- */

/* A level for p's children not seen before, by kind, in the order generated within a kind: 1, or 0 (memory).
 * A scan that marks positions when generated adds them to its table now (in the order generated). */
static int push_level(sl_scan *sc, const Pos *p) {
    int n = expand(sc, p, 1);
    size_t nsteps = 0;
    for (int i = 0; i < n; i++) {
        Kid *k = &sc->kids[i];
        if (sc->cfg.on_visit) {
            k->keep = !seen_has(&sc->seen, &k->key);
        } else {
            k->keep = seen_add(&sc->seen, &k->key);
            if (k->keep < 0) return 0;
        }
        if (k->keep) nsteps += (size_t)k->nsteps;
    }
    if (!reserve((void **)&sc->lv, &sc->lv_cap, sc->depth, 1, sizeof(Level)) ||
        !reserve((void **)&sc->nodes, &sc->nodes_cap, sc->nnodes, (size_t)n, sizeof(Node)) ||
        !reserve((void **)&sc->steps, &sc->steps_cap, sc->nsteps, nsteps, sizeof(Step)))
        return 0;
    Level *l = &sc->lv[sc->depth++];
    l->first = l->next = sc->nnodes;
    l->steps_at = sc->nsteps;
    for (int kind = 0; kind <= 4; kind++) {
        for (int i = 0; i < n; i++) {
            Kid *k = &sc->kids[i];
            if (!k->keep || k->kind != kind) continue;
            Node *nd = &sc->nodes[sc->nnodes++];
            nd->pos = k->pos;
            nd->step_at = sc->nsteps;
            nd->nsteps = (uint8_t)k->nsteps;
            memcpy(sc->steps + sc->nsteps, sc->kid_steps[i], (size_t)k->nsteps * sizeof(Step));
            sc->nsteps += (size_t)k->nsteps;
        }
    }
    l->end = sc->nnodes;
    return 1;
}

/* The won line: each level's child taken last, with its steps. */
static int dfs_line(sl_scan *sc) {
    sc->nline = 0;
    for (size_t d = 0; d < sc->depth; d++) {
        const Node *nd = &sc->nodes[sc->lv[d].taken];
        if (!reserve((void **)&sc->line, &sc->line_cap, sc->nline, nd->nsteps, sizeof(Step))) return SL_NOMEM;
        memcpy(sc->line + sc->nline, sc->steps + nd->step_at, nd->nsteps * sizeof(Step));
        sc->nline += nd->nsteps;
    }
    return SL_WON;
}

static int depth_first_run(sl_scan *sc, long long n) {
    long long done = 0;
    while (done < n) {
        while (sc->depth && sc->lv[sc->depth - 1].next == sc->lv[sc->depth - 1].end) {
            Level *l = &sc->lv[--sc->depth];
            sc->nnodes = l->first;
            sc->nsteps = l->steps_at;
        }
        if (!sc->depth) return SL_EXHAUSTED;
        Level *l = &sc->lv[sc->depth - 1];
        size_t i = l->next++;
        if (sc->cfg.on_visit) {
            Key key;
            make_key(&sc->nodes[i].pos, &key);
            int added = seen_add(&sc->seen, &key);
            if (added < 0) return SL_NOMEM;
            if (!added) continue;
        }
        done++;
        sc->expanded++;
        l->taken = i;
        Pos p = sc->nodes[i].pos; /* push_level may move the nodes */
        if (is_won(&p)) return dfs_line(sc);
        if (!push_level(sc, &p)) return SL_NOMEM;
    }
    return SL_MORE;
}

#endif
