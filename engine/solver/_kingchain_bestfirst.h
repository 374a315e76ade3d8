/* Part of _kingchain.c (which includes its parts once, in order, as one translation unit, so that the compiler
 * inlines across them as in one file): a best-first scan's store (kingchain_bestfirst.BestFirst). */
#ifndef PATIENCE_KINGCHAIN_BESTFIRST_H
#define PATIENCE_KINGCHAIN_BESTFIRST_H

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

#endif
