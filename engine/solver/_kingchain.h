/* The compiled king-chain search (_kingchain.c): its interface, also given to cffi (cffi_build.py). */
#ifndef PATIENCE_KINGCHAIN_H
#define PATIENCE_KINGCHAIN_H
#include <stdint.h>

#define KC_ORDER_MAX 16
#define KC_GROUP_END 255

/* kc_solve's answers */
#define KC_WON 0
#define KC_NO_WIN 1
#define KC_UNKNOWN_STATES 2
#define KC_UNKNOWN_SECONDS 3
#define KC_BAD (-1)
#define KC_NOMEM (-2)

/* One scan: its kinds of moves in groups (each group ended by KC_GROUP_END), the seed of its generator (0:
 * none), its noise (scored > 0: children best-scored first, plus noise below `scored` from the generator),
 * its score's weights, the length of its turns in slices (1 to 1024) and once the late scans joined (late_slices),
 * and when it marks a position seen: when
 * generated (0: a position generated at a shallow level is never entered by a deeper path) or when visited
 * (1: Freecell Solver's way, the deeper paths may pass through it). best_first > 0 makes it a best-first scan
 * instead (the kinds in the order's order, no shuffle; positions marked when generated): 1 and 2 take the
 * best-scored position first, 3 and 4 the fewest cards not home and under the columns' top runs; ties go to the
 * oldest (1, 3) or the newest (2, 4). */
typedef struct {
    uint8_t order[KC_ORDER_MAX];
    int order_len;
    uint32_t seed;
    int scored;
    int weights[4];
    int slices;
    int late_slices;
    int on_visit;
    int best_first;
} kc_scan_config;

/* The line of a win: entry i is steps[entry_ends[i - 1] .. entry_ends[i]), 4 bytes a step (kind, a, b, k). */
typedef struct {
    long long expanded;
    uint8_t *steps;
    int nsteps;
    int *entry_ends;
    int nentries;
} kc_result;

/* The first nfirst of the nscans scans take turns from the start; the others join once late_after positions
 * are expanded in all. */
int kc_solve(const uint8_t *cards, const int *lens, int ncols, const uint8_t *cells, int ncells, const uint8_t *fnd,
             int runs, const kc_scan_config *cfgs, int nscans, int nfirst, long long late_after,
             long long max_states, int slice, double deadline, kc_result *out);
void kc_free(kc_result *r);
#endif
