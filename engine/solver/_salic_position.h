/* Part of _salic.c (included once, in order, as one translation unit): a salic-law position and its moves, as
 * engine/games/salic_law.py plays them, the safe moves of safe.py, the key and score of profiles._salic_law and
 * the kinds of playouts.kind_of. */
#ifndef PATIENCE_SALIC_POSITION_H
#define PATIENCE_SALIC_POSITION_H

#define ACE 1
#define KING 13
#define HOME_CARDS 88
#define MAX_COLUMNS 8 /* a deal starts no column past the 8th */
#define MAX_CHAIN 110 /* safe._MAX_CHAIN */

/* The columns' cards from the first column's head on, then the stock's from its top: a deal moves no card. */
typedef struct {
    uint8_t ncols, nstock, fresh;
    uint16_t redeals;
    uint8_t len[SL_MAX_COLS];
    uint8_t fnd[SL_FOUNDATIONS]; /* lengths: a pile holds A up to its length's rank */
    uint8_t cards[SL_MAX_CARDS];
} Pos;

typedef struct {
    uint8_t kind, a, b;
} Step;
_Static_assert(sizeof(Step) == 3, "a line is handed over as 3 bytes a step");

static const uint8_t RANK[52] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

static inline int in_columns(const Pos *p) {
    int n = 0;
    for (int i = 0; i < p->ncols; i++) n += p->len[i];
    return n;
}

static inline int is_won(const Pos *p) {
    if (p->nstock) return 0;
    int home = 0;
    for (int f = 0; f < SL_FOUNDATIONS; f++) home += p->fnd[f];
    return home == HOME_CARDS;
}

/* The first foundation that takes `rank` (next_rank: its length + 1), or -1. */
static inline int home_for(const Pos *p, int rank) {
    for (int f = 0; f < SL_FOUNDATIONS; f++)
        if (p->fnd[f] + 1 == rank) return f;
    return -1;
}

/* Columns empty or down to a lone king (playouts.free_columns). */
static inline int free_columns(const Pos *p) {
    int n = 0, at = 0;
    for (int i = 0; i < p->ncols; i++) {
        if (p->len[i] == 0 || (p->len[i] == 1 && RANK[p->cards[at]] == KING)) n++;
        at += p->len[i];
    }
    return n;
}

/* Column s's free card taken off (s 0-based, not empty). */
static inline uint8_t take_top(Pos *p, int s) {
    int end = 0;
    for (int i = 0; i <= s; i++) end += p->len[i];
    int total = in_columns(p) + p->nstock;
    uint8_t c = p->cards[end - 1];
    memmove(p->cards + end - 1, p->cards + end, (size_t)(total - end));
    p->len[s]--;
    return c;
}

static inline void put_on(Pos *p, int t, uint8_t c) {
    int end = 0;
    for (int i = 0; i <= t; i++) end += p->len[i];
    int total = in_columns(p) + p->nstock;
    memmove(p->cards + end + 1, p->cards + end, (size_t)(total - end));
    p->cards[end] = c;
    p->len[t]++;
}

/* d: the stock's top onto the newest column; a king starts a new column (Tribunal._deal). */
static void deal(Pos *p, const sl_rules *r) {
    int top = in_columns(p); /* the stock's top card lies just after the newest column */
    uint8_t c = p->cards[top];
    if (RANK[c] != KING || p->ncols >= MAX_COLUMNS) {
        p->len[p->ncols - 1]++;
        p->nstock--;
        p->fresh = 0;
        return;
    }
    if (r->lone_king_rule && p->fresh) {
        /* the newest column first gets the next card that is not a king, from under the king */
        for (int i = top + 1; i < top + p->nstock; i++) {
            if (RANK[p->cards[i]] != KING) {
                uint8_t filler = p->cards[i];
                memmove(p->cards + top + 1, p->cards + top, (size_t)(i - top));
                p->cards[top] = filler;
                p->len[p->ncols - 1]++;
                p->nstock--;
                break;
            }
        }
    }
    p->len[p->ncols] = 1;
    p->ncols++;
    p->nstock--;
    p->fresh = (uint8_t)(r->lone_king_rule != 0);
}

/* rd: the columns gathered in order; column 1's head stays out as the only column (Tribunal._redeal). */
static void redeal(Pos *p, const sl_rules *r) {
    int total = in_columns(p);
    memset(p->len, 0, sizeof p->len);
    p->ncols = 1;
    p->len[0] = (uint8_t)(total > 0);
    p->nstock = (uint8_t)(total - p->len[0]);
    p->redeals++;
    p->fresh = (uint8_t)(r->lone_king_rule != 0);
}

static void apply(Pos *p, Step m, const sl_rules *r) {
    switch (m.kind) {
    case SL_STEP_HOME:
        take_top(p, m.a - 1);
        p->fnd[m.b - 1]++;
        break;
    case SL_STEP_COLUMN:
        put_on(p, m.b - 1, take_top(p, m.a - 1));
        break;
    case SL_STEP_DEAL:
        deal(p, r);
        break;
    default:
        redeal(p, r);
    }
}

/* Tribunal.successors' moves, in its order: each column's free card home (the first foundation that takes it),
 * then onto each lone card; then d, or rd. */
static int list_moves(const Pos *p, const sl_rules *r, Step *out) {
    if (is_won(p)) return 0;
    int n = 0, nlone = 0;
    uint8_t lone[SL_MAX_COLS];
    for (int t = 0; t < p->ncols; t++)
        if (p->len[t] == 1) lone[nlone++] = (uint8_t)(t + 1);
    int end = 0;
    for (int s = 0; s < p->ncols; s++) {
        end += p->len[s];
        if (p->len[s] < 2) continue;
        int rank = RANK[p->cards[end - 1]];
        if (rank == KING) continue;
        int f = home_for(p, rank);
        if (f >= 0) out[n++] = (Step){SL_STEP_HOME, (uint8_t)(s + 1), (uint8_t)(f + 1)};
        for (int i = 0; i < nlone; i++) out[n++] = (Step){SL_STEP_COLUMN, (uint8_t)(s + 1), lone[i]};
    }
    if (p->nstock)
        out[n++] = (Step){SL_STEP_DEAL, 0, 0};
    else if (p->redeals < r->redeals_allowed)
        out[n++] = (Step){SL_STEP_REDEAL, 0, 0};
    return n;
}

/* The safe moves (safe._salic_law until none is left, at most MAX_CHAIN): a column's free card (the column not
 * down to one card) goes home when it is an ace and a foundation is empty, or of the lowest rank the foundations
 * take next (every card of the rank below home); the first column in order, the first foundation that takes it.
 * Appends them to steps; returns their count. */
static int settle(Pos *p, Step *steps) {
    int n = 0;
    while (n < MAX_CHAIN && !is_won(p)) {
        int low = 99, ace = -1, at_low = -1;
        for (int f = 0; f < SL_FOUNDATIONS; f++) {
            int need = p->fnd[f] + 1;
            if (need == ACE && ace < 0) ace = f;
            if (need < low) {
                low = need;
                at_low = f;
            }
        }
        if (low == KING) at_low = -1; /* a king never goes home */
        int end = 0, s = 0, f = -1;
        for (; s < p->ncols; s++) {
            end += p->len[s];
            if (p->len[s] < 2) continue;
            int rank = RANK[p->cards[end - 1]];
            f = rank == ACE ? ace : rank == low ? at_low : -1;
            if (f >= 0) break;
        }
        if (f < 0) break;
        memmove(p->cards + end - 1, p->cards + end, (size_t)(in_columns(p) + p->nstock - end));
        p->len[s]--;
        p->fnd[f]++;
        steps[n++] = (Step){SL_STEP_HOME, (uint8_t)(s + 1), (uint8_t)(f + 1)};
    }
    return n;
}

/* playouts.kind_of of move m, which led to `child` (before its safe moves); free: the free columns before it. */
static int kind_of(const Pos *child, Step m, int free) {
    if (m.kind == SL_STEP_DEAL) return 3;
    if (m.kind == SL_STEP_REDEAL) return 4;
    if (m.kind == SL_STEP_HOME) return 0;
    if (free_columns(child) > free) return 1;
    /* _goes_home: the card the move uncovered, if some foundation takes it */
    int s = m.a - 1, end = 0;
    for (int i = 0; i <= s; i++) end += child->len[i];
    if (child->len[s] == 0 || is_won(child)) return 2;
    int rank = RANK[child->cards[end - 1]];
    return rank != KING && home_for(child, rank) >= 0 ? 1 : 2;
}

/* profiles._salic_law's score: cards not home, cards above a lower card of their column (the head left out),
 * redeals used. */
static int score_of(const Pos *p) {
    int home = 0, disorder = 0, at = 0;
    for (int f = 0; f < SL_FOUNDATIONS; f++) home += p->fnd[f];
    for (int i = 0; i < p->ncols; i++) {
        int lo = 14;
        for (int j = 1; j < p->len[i]; j++) {
            int r = RANK[p->cards[at + j]];
            if (r > lo)
                disorder++;
            else if (r < lo)
                lo = r;
        }
        at += p->len[i];
    }
    return 6 * (HOME_CARDS - home) + 2 * disorder + 8 * p->redeals;
}

/* The profile's key as bytes: equal exactly when the keys are (the columns, the stock, the foundations' lengths
 * as a multiset, redeals, fresh). Returns its length. */
static int key_of(const Pos *p, uint8_t *k) {
    int n = 0;
    k[n++] = p->ncols;
    memcpy(k + n, p->len, p->ncols);
    n += p->ncols;
    k[n++] = p->nstock;
    int cards = in_columns(p) + p->nstock;
    memcpy(k + n, p->cards, (size_t)cards);
    n += cards;
    uint8_t f[SL_FOUNDATIONS];
    memcpy(f, p->fnd, sizeof f);
    for (int i = 1; i < SL_FOUNDATIONS; i++) /* sorted: insertion sort of 8 */
        for (int j = i; j > 0 && f[j - 1] > f[j]; j--) {
            uint8_t x = f[j];
            f[j] = f[j - 1];
            f[j - 1] = x;
        }
    memcpy(k + n, f, sizeof f);
    n += SL_FOUNDATIONS;
    k[n++] = (uint8_t)(p->redeals & 255);
    k[n++] = (uint8_t)(p->redeals >> 8);
    k[n++] = p->fresh;
    return n;
}

#endif
