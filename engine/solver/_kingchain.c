/* The king-chain scans (engine/solver/kingchain.py and search.py's _solve_king_chain) in C.
 *
 * The same search step for step: the same move generation and order, the same settling, score, scans,
 * shuffles (CPython's Mersenne Twister and its shuffle/randrange) and turn-taking in slices; so for a given
 * budget in positions it gives the same outcome, the same line and the same count of expanded positions as
 * the pure-Python search. Only the transposition tables differ in their key: a 64-bit hash of the position
 * with the columns as a multiset (a sum of per-column hashes), where Python uses its own hash.
 *
 * Called through cffi (kingchain_build.py); the GIL is released during the call. All memory is freed on
 * return, except the line in kc_result, which the caller frees with kc_free.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_kingchain.h"

#define MAX_COLS 9
#define MAX_CARDS 104
#define NUM_CELLS 8
#define MOVE_CAP 512
#define REACH_MAX 2 /* a card value has two copies in the deck */

enum { F_COL, F_CELL, COL_COL, CELL_COL, COL_CELL };
enum { HOME, CELL_OUT, DIG_HOME, RUN, PARENT, TO_CELL, HEAD_RUN, NKINDS };

typedef struct {
    uint8_t ncols, ncells;
    uint8_t len[MAX_COLS];
    uint8_t cells[NUM_CELLS]; /* sorted */
    uint8_t fnd[8];           /* two ranks per suit, each pair sorted */
    uint16_t dirty;           /* the columns whose hash in ch is stale */
    uint16_t touched;         /* the columns changed since the last settle */
    uint16_t dis_stale;       /* the columns whose disorder in dis is stale */
    uint8_t dis[MAX_COLS];    /* each column's disorder (the score's term) */
    uint8_t cell_added;       /* a card went into the reserve since the last settle */
    uint8_t clean;            /* the last settle left nothing safe to send home */
    uint8_t masks_ok;         /* wanted and safe are those of fnd */
    uint64_t wanted, safe;    /* the cards fnd takes, and those of them safe to send home */
    uint64_t ch[MAX_COLS];    /* each column's hash (the key's part) */
    uint8_t cards[MAX_COLS][MAX_CARDS + 8]; /* 8 spare bytes: the hash reads whole words */
} Pos;

/* A move: n1 cards of column c1 into the reserve, n2 of column c2, then one step (kind, a, b, k). */
typedef struct {
    uint8_t n1, c1, n2, c2, kind, a, b, k;
} Move;

typedef struct {
    int n[NKINDS];
    Move m[NKINDS][MOVE_CAP];
} Moves;

#define RANKS13 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
#define SAME13(x) x, x, x, x, x, x, x, x, x, x, x, x, x
static const uint8_t RANK[52] = {RANKS13, RANKS13, RANKS13, RANKS13};
static const uint8_t SUIT[52] = {SAME13(0), SAME13(1), SAME13(2), SAME13(3)};
static const uint8_t RED[52] = {SAME13(0), SAME13(1), SAME13(1), SAME13(0)};
static inline int rank_of(int c) { return RANK[c]; }
static inline int suit_of(int c) { return SUIT[c]; }
static inline int red_of(int c) { return RED[c]; }
/* lo may lie on up: one rank lower, the other colour */
static inline int onto(int lo, int up) { return rank_of(lo) == rank_of(up) - 1 && red_of(lo) != red_of(up); }

/* The cards c may lie on, ascending (as Python's _PARENTS); returns how many (0 for a king). */
static inline int parents(int c, int out[2]) {
    int r = rank_of(c);
    if (r == 13) return 0;
    if (red_of(c)) {
        out[0] = 0 * 13 + r;
        out[1] = 3 * 13 + r;
    } else {
        out[0] = 1 * 13 + r;
        out[1] = 2 * 13 + r;
    }
    return 2;
}

/* ---- CPython's random.Random: MT19937, init_by_array, getrandbits, _randbelow, shuffle ---- */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int mti;
} Rng;

static void mt_init_genrand(Rng *r, uint32_t s) {
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++) r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->mti = MT_N;
}

/* random.Random(seed) for 0 <= seed < 2**32: init_by_array with the one 32-bit word of the seed */
static void mt_seed(Rng *r, uint32_t seed) {
    uint32_t key[1] = {seed};
    const int key_len = 1;
    mt_init_genrand(r, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > key_len ? MT_N : key_len; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
        if (j >= key_len) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u;
}

static uint32_t mt_next(Rng *r) {
    static const uint32_t mag01[2] = {0u, 0x9908b0dfu};
    uint32_t y;
    if (r->mti >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (r->mt[MT_N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
        r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        r->mti = 0;
    }
    y = r->mt[r->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

/* _randbelow(n) for 1 <= n < 2**31: getrandbits(n.bit_length()) until below n */
static uint32_t mt_below(Rng *r, uint32_t n) {
    int k = 0;
    while ((n >> k) != 0) k++;
    uint32_t v = mt_next(r) >> (32 - k);
    while (v >= n) v = mt_next(r) >> (32 - k);
    return v;
}

/* ---- the position ---- */

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

/* ---- move generation: kingchain.moves ---- */

static inline void add(Moves *L, int kind, int n1, int c1, int n2, int c2, int sk, int a, int b, int k) {
    Move *m = &L->m[kind][L->n[kind]++];
    m->n1 = (uint8_t)n1;
    m->c1 = (uint8_t)c1;
    m->n2 = (uint8_t)n2;
    m->c2 = (uint8_t)c2;
    m->kind = (uint8_t)sk;
    m->a = (uint8_t)a;
    m->b = (uint8_t)b;
    m->k = (uint8_t)k;
}

static void gen_moves(Pos *p, int runs, Moves *L) {
    int free = NUM_CELLS - p->ncells;
    masks(p);
    uint64_t wanted = p->wanted;
    uint8_t rn[52], rt[52][REACH_MAX], rdc[52][REACH_MAX];
    memset(rn, 0, sizeof rn);
    for (int k = 0; k < NKINDS; k++) L->n[k] = 0;
    /* where each card lies within reach: (column, cards above it), at most `free` above, no child on it */
    for (int t = 0; t < p->ncols; t++) {
        int n = p->len[t];
        const uint8_t *col = p->cards[t];
        int lim = n < NUM_CELLS + 1 ? n : NUM_CELLS + 1;
        for (int dc = 0; dc < lim; dc++) {
            int c = col[n - 1 - dc];
            if (dc == 0 || !onto(col[n - dc], c)) {
                if (dc > free) break;
                rt[c][rn[c]] = (uint8_t)t;
                rdc[c][rn[c]] = (uint8_t)dc;
                rn[c]++;
            }
        }
    }
    for (int t = 0; t < p->ncols; t++) {
        int n = p->len[t];
        if (n && ((wanted >> p->cards[t][n - 1]) & 1u)) add(L, HOME, 0, 0, 0, 0, F_COL, t, 0, 0);
    }
    for (int j = 0; j < p->ncells; j++) {
        int c = p->cells[j];
        if (j > 0 && p->cells[j - 1] == c) continue;
        if ((wanted >> c) & 1u) add(L, HOME, 0, 0, 0, 0, F_CELL, c, 0, 0);
        int ps[2], np = parents(c, ps);
        for (int q = 0; q < np; q++) {
            int pc = ps[q];
            for (int e = 0; e < rn[pc]; e++) add(L, CELL_OUT, rdc[pc][e], rt[pc][e], 0, 0, CELL_COL, c, rt[pc][e], 0);
        }
    }
    Move mine[MOVE_CAP];
    for (int i = 0; i < p->ncols; i++) {
        int n = p->len[i];
        if (!n) continue;
        const uint8_t *col = p->cards[i];
        if (free) add(L, TO_CELL, 0, 0, 0, 0, COL_CELL, i, 0, 0);
        int dmax = n - 1 < free ? n - 1 : free;
        for (int d = 1; d <= dmax; d++)
            if ((wanted >> col[n - 1 - d]) & 1u) add(L, DIG_HOME, d, i, 0, 0, F_COL, i, 0, 0);
        /* the runs from the free card down */
        int sh[MAX_COLS + 1], sk[MAX_COLS + 1], ns = 0;
        if (runs) {
            int top = n, above2 = 0;
            while (top > 0 && above2 <= NUM_CELLS) {
                int k = 1;
                while (k < top && onto(col[top - k], col[top - k - 1])) k++;
                sh[ns] = top - k;
                sk[ns] = k;
                ns++;
                above2 += k;
                top -= k;
            }
        } else {
            int stop = n - 2 - free > -1 ? n - 2 - free : -1;
            for (int j = n - 1; j > stop; j--) {
                sh[ns] = j;
                sk[ns] = 1;
                ns++;
            }
        }
        int above = 0, nmine = 0;
        for (int s = 0; s < ns; s++) {
            if (above > free) break;
            int head = sh[s], k = sk[s];
            int ps[2], np = parents(col[head], ps);
            for (int q = 0; q < np; q++) {
                int pc = ps[q];
                for (int e = 0; e < rn[pc]; e++) {
                    int t = rt[pc][e], dc = rdc[pc][e];
                    if (t != i && above + dc <= free) {
                        if (head == 0) {
                            add(L, HEAD_RUN, above, i, dc, t, COL_COL, i, t, k);
                        } else {
                            Move *m = &mine[nmine++];
                            m->n1 = (uint8_t)above;
                            m->c1 = (uint8_t)i;
                            m->n2 = (uint8_t)dc;
                            m->c2 = (uint8_t)t;
                            m->kind = COL_COL;
                            m->a = (uint8_t)i;
                            m->b = (uint8_t)t;
                            m->k = (uint8_t)k;
                        }
                    }
                }
            }
            if (above == 0 && k > 1) {
                /* the top part of the run onto another free card */
                for (int j = 1; j < k; j++) {
                    int pj[2], npj = parents(col[n - j], pj);
                    for (int q = 0; q < npj; q++) {
                        int pc = pj[q];
                        for (int e = 0; e < rn[pc]; e++)
                            if (rt[pc][e] != i && rdc[pc][e] == 0) add(L, PARENT, 0, 0, 0, 0, COL_COL, i, rt[pc][e], j);
                    }
                }
            }
            above += k;
        }
        for (int q = nmine - 1; q >= 0; q--) L->m[RUN][L->n[RUN]++] = mine[q];
    }
}

/* ---- the transposition table: a set of 64-bit keys, open addressing ---- */

typedef struct {
    uint64_t *k;
    size_t cap, n;
} Seen;

static int seen_init(Seen *s) {
    s->cap = 1024;
    s->n = 0;
    s->k = calloc(s->cap, sizeof(uint64_t));
    return s->k != NULL;
}

/* 1 if added, 0 if there already, -1 out of memory */
static int seen_add(Seen *s, uint64_t key) {
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap * 2;
        uint64_t *k = calloc(cap, sizeof(uint64_t));
        if (k == NULL) return -1;
        for (size_t i = 0; i < s->cap; i++) {
            uint64_t v = s->k[i];
            if (v) {
                size_t j = (size_t)mix64(v) & (cap - 1);
                while (k[j]) j = (j + 1) & (cap - 1);
                k[j] = v;
            }
        }
        free(s->k);
        s->k = k;
        s->cap = cap;
    }
    size_t j = (size_t)mix64(key) & (s->cap - 1);
    while (s->k[j]) {
        if (s->k[j] == key) return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->k[j] = key;
    s->n++;
    return 1;
}

/* 1 if there */
static int seen_has(const Seen *s, uint64_t key) {
    size_t j = (size_t)mix64(key) & (s->cap - 1);
    while (s->k[j]) {
        if (s->k[j] == key) return 1;
        j = (j + 1) & (s->cap - 1);
    }
    return 0;
}

/* ---- a best-first scan's store (kingchain_bestfirst.BestFirst) ---- */

/* A position generated and not yet taken: its evaluation, its number in the order of generation (the tie-break),
 * the expanded position it is a child of, and the move that leads there from that one. */
typedef struct {
    long long score;
    uint32_t seq;
    uint32_t parent;
    Move m;
} BItem;

/* An expanded position, packed: the one it is a child of, the move from there, and its cards. */
typedef struct {
    uint32_t parent;
    Move m;
    uint8_t ncols, ncells, len[MAX_COLS], cells[NUM_CELLS], fnd[8];
    uint8_t cards[MAX_CARDS];
} BNode;

typedef struct {
    BItem *heap;
    size_t hn, hcap;
    BNode *nodes;
    size_t nn, ncap;
    uint32_t seq;
    long long under0; /* the root's cards under runs (the evaluation's scale) */
    BItem won;        /* the item whose position was won */
} BestFirst;

/* 100 * k ** 1.3, rounded: the weight of k cards lying under the run at the top of a column */
static const int UNDER[MAX_CARDS + 1] = {
    0,      100,    246,    417,    606,    810,    1027,   1255,   1493,   1740,   1995,   2258,   2529,   2806,   3090,   3380,
    3676,   3977,   4284,   4596,   4913,   5235,   5561,   5892,   6227,   6566,   6910,   7257,   7609,   7964,   8323,   8685,
    9051,   9420,   9793,   10169,  10549,  10931,  11317,  11705,  12097,  12492,  12889,  13290,  13693,  14099,  14507,  14919,
    15333,  15749,  16168,  16590,  17014,  17440,  17869,  18301,  18735,  19171,  19609,  20050,  20493,  20938,  21385,  21834,
    22286,  22740,  23196,  23654,  24114,  24576,  25040,  25506,  25974,  26444,  26915,  27389,  27865,  28342,  28822,  29303,
    29786,  30271,  30758,  31247,  31737,  32229,  32723,  33218,  33715,  34214,  34715,  35217,  35721,  36227,  36734,  37243,
    37753,  38265,  38779,  39294,  39811,  40329,  40849,  41370,  41893};

/* The cards lying under the run at the top of each column, weighed by UNDER. */
static long long pos_under(const Pos *p) {
    long long u = 0;
    for (int i = 0; i < p->ncols; i++) {
        int n = p->len[i];
        if (n <= 1) continue;
        const uint8_t *col = p->cards[i];
        int c = n - 2;
        while (c >= 0 && onto(col[c + 1], col[c])) c--;
        u += UNDER[c + 1];
    }
    return u;
}

static void pack(const Pos *p, BNode *b) {
    b->ncols = p->ncols;
    b->ncells = p->ncells;
    memcpy(b->len, p->len, MAX_COLS);
    memcpy(b->cells, p->cells, NUM_CELLS);
    memcpy(b->fnd, p->fnd, 8);
    int at = 0;
    for (int i = 0; i < p->ncols; i++) {
        memcpy(b->cards + at, p->cards[i], p->len[i]);
        at += p->len[i];
    }
}

static void unpack(const BNode *b, Pos *p) {
    p->ncols = b->ncols;
    p->ncells = b->ncells;
    memcpy(p->len, b->len, MAX_COLS);
    memcpy(p->cells, b->cells, NUM_CELLS);
    memcpy(p->fnd, b->fnd, 8);
    int at = 0;
    for (int i = 0; i < b->ncols; i++) {
        memcpy(p->cards[i], b->cards + at, b->len[i]);
        at += b->len[i];
    }
    p->dirty = p->dis_stale = (uint16_t)((1u << MAX_COLS) - 1);
    p->touched = 0;
    p->cell_added = 0;
    p->clean = 0;
    p->masks_ok = 0;
}

/* Heap order: the lower evaluation first; among equals the older (best_first odd) or the newer (even). */
static inline int bf_before(const BItem *x, const BItem *y, int oldest) {
    if (x->score != y->score) return x->score < y->score;
    return oldest ? x->seq < y->seq : x->seq > y->seq;
}

static int bf_push(BestFirst *bf, const BItem *it, int oldest) {
    if (bf->hn == bf->hcap) {
        size_t cap = bf->hcap ? bf->hcap * 2 : 1024;
        BItem *h = realloc(bf->heap, cap * sizeof(BItem));
        if (h == NULL) return -1;
        bf->heap = h;
        bf->hcap = cap;
    }
    size_t i = bf->hn++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!bf_before(it, &bf->heap[up], oldest)) break;
        bf->heap[i] = bf->heap[up];
        i = up;
    }
    bf->heap[i] = *it;
    return 0;
}

static BItem bf_pop(BestFirst *bf, int oldest) {
    BItem top = bf->heap[0], last = bf->heap[--bf->hn];
    size_t i = 0, n = bf->hn;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && bf_before(&bf->heap[c + 1], &bf->heap[c], oldest)) c++;
        if (!bf_before(&bf->heap[c], &last, oldest)) break;
        bf->heap[i] = bf->heap[c];
        i = c;
    }
    if (n) bf->heap[i] = last;
    return top;
}

/* Keep an expanded position: its index, or -1 (memory). */
static long long bf_keep(BestFirst *bf, const Pos *p, uint32_t parent, const Move *m) {
    if (bf->nn == bf->ncap) {
        size_t cap = bf->ncap ? bf->ncap * 2 : 1024;
        BNode *nodes = realloc(bf->nodes, cap * sizeof(BNode));
        if (nodes == NULL) return -1;
        bf->nodes = nodes;
        bf->ncap = cap;
    }
    BNode *b = &bf->nodes[bf->nn];
    pack(p, b);
    b->parent = parent;
    if (m != NULL) b->m = *m;
    return (long long)bf->nn++;
}

/* ---- a scan: kingchain.Scan ---- */

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
    if (sb.oom) {
        free(sb.s);
        free(ends);
        return -1;
    }
    out->steps = sb.s;
    out->nsteps = sb.n;
    out->entry_ends = ends;
    out->nentries = depth;
    return 0;
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

static double thread_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The line of the won scan: every level's move taken, each with its settling steps. */
static int write_line(const Scan *sc, kc_result *out) {
    if (sc->cfg.best_first) return bf_write_line(sc, out);
    StepBuf sb = {0};
    int *ends = malloc((size_t)sc->depth * sizeof(int));
    if (ends == NULL) return -1;
    Pos p = sc->lv[0].pos;
    for (int d = 0; d < sc->depth; d++) {
        const Level *l = &sc->lv[d];
        apply_move(&p, &l->kids[l->next - 1], &sb);
        settle(&p, &sb);
        ends[d] = sb.n;
    }
    if (sb.oom) {
        free(sb.s);
        free(ends);
        return -1;
    }
    out->steps = sb.s;
    out->nsteps = sb.n;
    out->entry_ends = ends;
    out->nentries = sc->depth;
    return 0;
}

static int check_position(const uint8_t *cards, const int *lens, int ncols, const uint8_t *cells, int ncells,
                          const uint8_t *fnd, Pos *p) {
    if (ncols < 1 || ncols > MAX_COLS || ncells < 0 || ncells > NUM_CELLS) return 0;
    int count[52] = {0}, total = 0;
    memset(p, 0, sizeof *p);
    p->ncols = (uint8_t)ncols;
    for (int i = 0; i < ncols; i++) {
        if (lens[i] < 0 || lens[i] > MAX_CARDS - total) return 0;
        for (int j = 0; j < lens[i]; j++) {
            int c = cards[total + j];
            if (c >= 52 || ++count[c] > 2) return 0;
            p->cards[i][j] = (uint8_t)c;
        }
        p->len[i] = (uint8_t)lens[i];
        total += lens[i];
    }
    for (int j = 0; j < ncells; j++) {
        int c = cells[j];
        if (c >= 52 || ++count[c] > 2 || (j > 0 && cells[j - 1] > c)) return 0;
        p->cells[j] = (uint8_t)c;
    }
    p->ncells = (uint8_t)ncells;
    for (int s = 0; s < 4; s++) {
        if (fnd[2 * s] > fnd[2 * s + 1] || fnd[2 * s + 1] > 13) return 0;
        /* a card on a foundation is not in play as well: at most two copies in all */
        for (int r = 1; r <= 13; r++) {
            int c = 13 * s + r - 1;
            if (count[c] + (fnd[2 * s] >= r) + (fnd[2 * s + 1] >= r) > 2) return 0;
        }
    }
    memcpy(p->fnd, fnd, 8);
    p->dirty = p->dis_stale = (uint16_t)((1u << MAX_COLS) - 1);
    return 1;
}

/* Start a scan on the root: its settings, generator and table, and the root's children. 0, or -1 (memory). */
static int scan_start(Scan *sc, const kc_scan_config *cfg, Work *w, const Pos *root, uint64_t root_key) {
    sc->cfg = *cfg;
    int in[NKINDS] = {0};
    for (int g = 0; g < sc->cfg.order_len; g++)
        if (sc->cfg.order[g] != KC_GROUP_END) in[sc->cfg.order[g]] = 1;
    sc->complete = 1;
    for (int k = 0; k < NKINDS; k++) {
        if (in[k])
            sc->kinds[sc->nkinds++] = k;
        else
            sc->complete = 0;
    }
    sc->has_rng = sc->cfg.seed != 0;
    if (sc->has_rng) mt_seed(&sc->rng, sc->cfg.seed);
    if (!seen_init(&sc->seen) || seen_add(&sc->seen, root_key) < 0) return -1;
    if (sc->cfg.best_first) return bf_start(sc, w, root);
    return push_children(sc, w, root);
}

int kc_solve(const uint8_t *cards, const int *lens, int ncols, const uint8_t *cells, int ncells, const uint8_t *fnd,
             int runs, const kc_scan_config *cfgs, int nscans, int nfirst, long long late_after,
             long long max_states, int slice, double deadline, kc_result *out) {
    Pos root;
    memset(out, 0, sizeof *out);
    if (cards == NULL || lens == NULL || fnd == NULL || cfgs == NULL || (ncells > 0 && cells == NULL)) return KC_BAD;
    if (nscans < 1 || nscans > 64 || nfirst < 1 || nfirst > nscans || late_after < 0 || slice < 1) return KC_BAD;
    if (!check_position(cards, lens, ncols, cells, ncells, fnd, &root)) return KC_BAD;
    for (int s = 0; s < nscans; s++) {
        const kc_scan_config *c = &cfgs[s];
        if (c->order_len < 1 || c->order_len > KC_ORDER_MAX || c->scored < 0 || c->scored > (1 << 30)) return KC_BAD;
        if (c->slices < 1 || c->slices > 1024 || c->best_first < 0 || c->best_first > 4) return KC_BAD;
        if (c->late_slices < 1 || c->late_slices > 1024) return KC_BAD;
        for (int g = 0; g < c->order_len; g++)
            if (c->order[g] >= NKINDS && c->order[g] != KC_GROUP_END) return KC_BAD;
    }
    Work *w = malloc(sizeof(Work));
    Scan *scans = calloc((size_t)nscans, sizeof(Scan));
    int rc = KC_NOMEM;
    if (w == NULL || scans == NULL) goto done;
    w->runs = runs != 0;
    uint64_t root_key = pos_key(&root);
    int active = 0; /* scans [0, active) take turns; the others join once late_after positions are expanded */
    for (int s = 0; s < nfirst; s++, active++)
        if (scan_start(&scans[s], &cfgs[s], w, &root, root_key) < 0) goto done;
    long long turn = 0;
    for (;;) {
        long long expanded = 0;
        for (int s = 0; s < active; s++) expanded += scans[s].expanded;
        out->expanded = expanded;
        if (max_states >= 0 && expanded >= max_states) {
            rc = KC_UNKNOWN_STATES;
            break;
        }
        if (deadline >= 0 && thread_seconds() >= deadline) {
            rc = KC_UNKNOWN_SECONDS;
            break;
        }
        if (active < nscans && expanded >= late_after) {
            for (int s = 0; s < active; s++) scans[s].cfg.slices = scans[s].cfg.late_slices;
            for (; active < nscans; active++)
                if (scan_start(&scans[active], &cfgs[active], w, &root, root_key) < 0) goto done;
        }
        Scan *sc = &scans[turn % active];
        long long n = (long long)slice * sc->cfg.slices;
        if (max_states >= 0 && max_states - expanded < n) n = max_states - expanded;
        turn++;
        if (sc->idle) {
            int all = 1;
            for (int s = 0; s < active; s++) all &= scans[s].idle;
            if (all) {
                rc = KC_UNKNOWN_STATES;
                break;
            }
            continue;
        }
        int r = scan_run(sc, w, n);
        if (r == RUN_MORE || r == RUN_IDLE) continue;
        out->expanded = 0;
        for (int s = 0; s < active; s++) out->expanded += scans[s].expanded;
        if (r == RUN_OOM) break;
        if (r == RUN_EXHAUSTED) {
            rc = KC_NO_WIN;
            break;
        }
        rc = write_line(sc, out) < 0 ? KC_NOMEM : KC_WON;
        break;
    }
done:
    if (scans != NULL) {
        for (int s = 0; s < nscans; s++) scan_free(&scans[s]);
        free(scans);
    }
    free(w);
    return rc;
}

void kc_free(kc_result *r) {
    free(r->steps);
    free(r->entry_ends);
    r->steps = NULL;
    r->entry_ends = NULL;
    r->nsteps = r->nentries = 0;
}
