/* Part of _kingchain.c (which includes its parts once, in order, as one translation unit, so that the compiler
 * inlines across them as in one file): the sizes, the position's and a move's types, and the cards' tables. */
#ifndef PATIENCE_KINGCHAIN_CARDS_H
#define PATIENCE_KINGCHAIN_CARDS_H

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

#endif
