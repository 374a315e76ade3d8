/* Part of _kingchain.c (which includes its parts once, in order, as one translation unit, so that the compiler
 * inlines across them as in one file): the position: cards home, steps, settling, its key and its score. */
#ifndef PATIENCE_KINGCHAIN_POSITION_H
#define PATIENCE_KINGCHAIN_POSITION_H

static inline int fnd_sum(const uint8_t *fnd) {
    int s = 0;
    for (int i = 0; i < 8; i++) s += fnd[i];
    return s;
}

static inline int is_won(const Pos *p) {
    for (int i = 0; i < 8; i++)
        if (p->fnd[i] != 13) return 0;
    return 1;
}

/* The cards the foundations take now (a bit per card value). */
static inline uint64_t wanted_mask(const uint8_t *fnd) {
    uint64_t m = 0;
    for (int s = 0; s < 4; s++)
        for (int j = 0; j < 2; j++)
            if (fnd[2 * s + j] < 13) m |= 1ull << (13 * s + fnd[2 * s + j]);
    return m;
}

/* Those of them that are safe to send home: an ace or a two always, a card of rank r once both foundations
 * of each suit of the other colour are at r - 1. */
static inline uint64_t safe_mask(const uint8_t *fnd) {
    uint64_t wanted = wanted_mask(fnd), safe = 0;
    int mb = fnd[0];
    if (fnd[1] < mb) mb = fnd[1];
    if (fnd[6] < mb) mb = fnd[6];
    if (fnd[7] < mb) mb = fnd[7];
    int mr = fnd[2];
    if (fnd[3] < mr) mr = fnd[3];
    if (fnd[4] < mr) mr = fnd[4];
    if (fnd[5] < mr) mr = fnd[5];
    int red_max = mb + 1 > 2 ? mb + 1 : 2;
    int black_max = mr + 1 > 2 ? mr + 1 : 2;
    while (wanted) {
        int c = __builtin_ctzll(wanted);
        wanted &= wanted - 1;
        if (rank_of(c) <= (red_of(c) ? red_max : black_max)) safe |= 1ull << c;
    }
    return safe;
}

/* c goes home (it fits: the generator checked) */
static inline void home(uint8_t *fnd, int c) {
    int r = rank_of(c), i = 2 * suit_of(c);
    if (fnd[i] == r - 1) {
        if (r > fnd[i + 1]) {
            fnd[i] = fnd[i + 1];
            fnd[i + 1] = (uint8_t)r;
        } else {
            fnd[i] = (uint8_t)r;
        }
    } else {
        fnd[i + 1] = (uint8_t)r;
    }
}

static inline void cell_remove(Pos *p, int c) {
    int j = 0;
    while (p->cells[j] != c) j++;
    memmove(p->cells + j, p->cells + j + 1, (size_t)(p->ncells - j - 1));
    p->ncells--;
}

static inline void cell_insert(Pos *p, int c) {
    int j = p->ncells;
    while (j > 0 && p->cells[j - 1] > c) {
        p->cells[j] = p->cells[j - 1];
        j--;
    }
    p->cells[j] = (uint8_t)c;
    p->ncells++;
}

/* One atomic step, legal by construction. */
static inline void apply_step(Pos *p, int kind, int a, int b, int k) {
    switch (kind) {
    case F_COL:
        home(p->fnd, p->cards[a][--p->len[a]]);
        p->dirty |= (uint16_t)(1u << a);
        p->dis_stale |= (uint16_t)(1u << a);
        p->touched |= (uint16_t)(1u << a);
        p->masks_ok = 0;
        break;
    case F_CELL:
        home(p->fnd, a);
        cell_remove(p, a);
        p->masks_ok = 0;
        break;
    case COL_COL:
        memcpy(p->cards[b] + p->len[b], p->cards[a] + p->len[a] - k, (size_t)k);
        p->len[a] = (uint8_t)(p->len[a] - k);
        p->len[b] = (uint8_t)(p->len[b] + k);
        p->dirty |= (uint16_t)((1u << a) | (1u << b));
        p->dis_stale |= (uint16_t)((1u << a) | (1u << b));
        p->touched |= (uint16_t)((1u << a) | (1u << b));
        break;
    case CELL_COL:
        cell_remove(p, a);
        p->cards[b][p->len[b]++] = (uint8_t)a;
        p->dirty |= (uint16_t)(1u << b);
        p->dis_stale |= (uint16_t)(1u << b);
        p->touched |= (uint16_t)(1u << b);
        break;
    default: /* COL_CELL */
        cell_insert(p, p->cards[a][--p->len[a]]);
        p->dirty |= (uint16_t)(1u << a);
        p->dis_stale |= (uint16_t)(1u << a);
        p->touched |= (uint16_t)(1u << a);
        p->cell_added = 1;
        break;
    }
}

typedef struct {
    uint8_t *s; /* 4 bytes a step */
    int n, cap;
    int oom;
} StepBuf;

static void steps_push(StepBuf *sb, int kind, int a, int b, int k) {
    if (sb == NULL || sb->oom) return;
    if (sb->n == sb->cap) {
        int cap = sb->cap ? sb->cap * 2 : 256;
        uint8_t *s = realloc(sb->s, (size_t)cap * 4);
        if (s == NULL) {
            sb->oom = 1;
            return;
        }
        sb->s = s;
        sb->cap = cap;
    }
    uint8_t *d = sb->s + 4 * sb->n++;
    d[0] = (uint8_t)kind;
    d[1] = (uint8_t)a;
    d[2] = (uint8_t)b;
    d[3] = (uint8_t)k;
}

static void apply_move(Pos *p, const Move *m, StepBuf *sb) {
    for (int i = 0; i < m->n1; i++) {
        apply_step(p, COL_CELL, m->c1, 0, 0);
        steps_push(sb, COL_CELL, m->c1, 0, 0);
    }
    for (int i = 0; i < m->n2; i++) {
        apply_step(p, COL_CELL, m->c2, 0, 0);
        steps_push(sb, COL_CELL, m->c2, 0, 0);
    }
    apply_step(p, m->kind, m->a, m->b, m->k);
    steps_push(sb, m->kind, m->a, m->b, m->k);
}

/* The safe moves home until none is left: a column's free card first (the first column that has one),
 * else a reserve card. */
static inline void masks(Pos *p) {
    if (!p->masks_ok) {
        p->wanted = wanted_mask(p->fnd);
        p->safe = safe_mask(p->fnd);
        p->masks_ok = 1;
    }
}

static void settle(Pos *p, StepBuf *sb) {
    if (p->clean && p->masks_ok) {
        /* Settled before, and no card went home since (the same safe cards): only a changed column's free
         * card or a card new in the reserve can be safe now. */
        uint64_t safe = p->safe;
        int any = 0;
        for (uint32_t t = p->touched; t && !any; t &= t - 1) {
            int i = __builtin_ctz(t), n = p->len[i];
            any = n && ((safe >> p->cards[i][n - 1]) & 1u);
        }
        for (int j = 0; p->cell_added && j < p->ncells && !any; j++) any = (safe >> p->cells[j]) & 1u;
        p->touched = 0;
        p->cell_added = 0;
        if (!any) return;
    }
    p->touched = 0;
    p->cell_added = 0;
    p->clean = 1;
    for (;;) {
        masks(p);
        uint64_t safe = p->safe;
        int done = 0;
        for (int i = 0; i < p->ncols; i++) {
            int n = p->len[i];
            if (n && ((safe >> p->cards[i][n - 1]) & 1u)) {
                apply_step(p, F_COL, i, 0, 0);
                steps_push(sb, F_COL, i, 0, 0);
                done = 1;
                break;
            }
        }
        if (done) continue;
        for (int j = 0; j < p->ncells; j++) {
            int c = p->cells[j];
            if ((safe >> c) & 1u) {
                apply_step(p, F_CELL, c, 0, 0);
                steps_push(sb, F_CELL, c, 0, 0);
                done = 1;
                break;
            }
        }
        if (!done) return;
    }
}

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* A hash of n bytes at b, 8 at a time (the bytes after the n-th, up to a whole word, are read and ignored). */
static inline uint64_t bytes_hash(const uint8_t *b, int n, uint64_t h) {
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = mix64(h ^ w) + 0x9e3779b97f4a7c15ull;
    }
    if (i < n) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        w &= ~0ull >> (8 * (8 - (n - i)));
        h = mix64(h ^ w) + 0x9e3779b97f4a7c15ull;
    }
    return mix64(h ^ ((uint64_t)n << 56));
}

/* The transposition key: the columns as a multiset (a sum of their hashes), the cells, the foundations. */
static uint64_t pos_key(Pos *p) {
    uint64_t k = 0;
    for (int i = 0; i < p->ncols; i++) {
        if (p->dirty & (1u << i)) p->ch[i] = bytes_hash(p->cards[i], p->len[i], 0xcbf29ce484222325ull);
        k += p->ch[i];
    }
    p->dirty = 0;
    uint64_t cells[2] = {0, 0};
    memcpy(cells, p->cells, p->ncells);
    k += mix64(cells[0] ^ ((uint64_t)p->ncells << 60) ^ 0x84222325cbf29ce4ull) * 3u;
    uint64_t fnd;
    memcpy(&fnd, p->fnd, 8);
    k += mix64(fnd ^ 0x6a09e667f3bcc909ull) * 5u;
    return k ? k : 1;
}

/* How far from won (lower is better): kingchain.score */
static int pos_score(Pos *p, const int *w) {
    masks(p);
    uint64_t wanted = p->wanted;
    int disorder = 0, buried = 0;
    for (int i = 0; i < p->ncols; i++) {
        int n = p->len[i];
        if (!n) {
            p->dis[i] = 0;
            continue;
        }
        const uint8_t *col = p->cards[i];
        if (p->dis_stale & (1u << i)) {
            /* cards lying above a lower card that is not their parent */
            int lo = 14, prev = -1, d = 0;
            for (int j = 0; j < n; j++) {
                int c = col[j], r = rank_of(c);
                if (r > lo && !(prev >= 0 && onto(c, prev))) d++;
                if (r < lo) lo = r;
                prev = c;
            }
            p->dis[i] = (uint8_t)d;
        }
        disorder += p->dis[i];
        /* Python counts the last copy of a wanted card in the column and the first if it is another: with two
         * copies of a card at most, that is every copy */
        for (int j = 0; j < n; j++)
            if ((wanted >> col[j]) & 1u) buried += n - 1 - j;
    }
    p->dis_stale = 0;
    return w[0] * (104 - fnd_sum(p->fnd)) + w[1] * disorder + w[2] * buried - w[3] * (NUM_CELLS - p->ncells);
}

#endif
