/* The compiled captives late scans (_captives.c): their interface, also given to cffi (cffi_build.py). */
#ifndef PATIENCE_CAPTIVES_H
#define PATIENCE_CAPTIVES_H
#include <stdint.h>

/* cp_run's answers */
#define CP_WON 0
#define CP_MORE 1
#define CP_EXHAUSTED 2
#define CP_BAD (-1)
#define CP_NOMEM (-2)

/* a step of a line, 4 bytes (type, a, b, n): a card home (a: its source, 0-7 a column, 8 the waste, 9-15 a
 * captive; b: the slot), a king to the king row (a: its source), a run (a column a to column b, n cards), the
 * waste's top to column b, the stock, a redeal */
#define CP_HOME 0
#define CP_KING_ROW 1
#define CP_RUN 2
#define CP_WASTE_TO 3
#define CP_STOCK 4
#define CP_REDEAL 5

/* The longest column a position given may hold (a run of 13 may still go on it), the longest key, the most safe
 * moves after one move (safe._MAX_CHAIN) */
#define CP_ROOT_COLUMN 19
#define CP_KEY_MAX 160
#define CP_SETTLE_MAX 110

/* A captives position as the State holds it: the 8 columns' cards one column after the other, the 8 king-row
 * piles likewise (each K, A, 2 .. of one suit), the stock (index 0 turned next), the waste (last = top), the 7
 * captives (-1 once played), the waste turns used. */
typedef struct {
    const uint8_t *cards;
    int col_lens[8];
    const uint8_t *found;
    int found_lens[8];
    const uint8_t *stock;
    int nstock;
    const uint8_t *waste;
    int nwaste;
    int captives[7];
    int redeals;
} cp_position;

/* One child of a position as the scans see it (cp_children, for the tests): the move and the safe moves after it,
 * its kind (playouts.kind_of), score (the profile's), whether it is won, its key (equal keys: equal profile keys). */
typedef struct {
    uint8_t steps[4 * (1 + CP_SETTLE_MAX)];
    int nsteps;
    int kind;
    int score;
    int won;
    uint8_t key[CP_KEY_MAX];
    int key_len;
} cp_child;

typedef struct cp_scan cp_scan;

/* playouts.Playouts (next_kind > 0: its _run_pool) and search._DepthFirst; NULL and *err = CP_BAD for a position
 * or an argument the scans do not take, CP_NOMEM out of memory */
cp_scan *cp_playouts(const cp_position *root, uint32_t seed, int noise, double stock_last, int by_kind,
                     double next_kind, int *err);
cp_scan *cp_depth_first(const cp_position *root, uint32_t seed, int noise, int by_kind, int on_visit, int *err);
/* Expand up to n positions: CP_WON (the line: cp_line), CP_MORE, CP_EXHAUSTED (depth-first: nothing left), CP_NOMEM */
int cp_run(cp_scan *s, long long n);
long long cp_expanded(const cp_scan *s);
/* The line of the last win, 4 bytes a step; its length in steps */
int cp_line(const cp_scan *s, const uint8_t **steps);
void cp_free(cp_scan *s);

/* The children of pos in Captives.successors' order, settled: how many (at most max), or CP_BAD */
int cp_children(const cp_position *pos, cp_child *out, int max);
/* pos settled (safe.autoplay) and its key: the count of safe moves (in steps), or CP_BAD */
int cp_settle(const cp_position *pos, cp_child *out);
#endif
