/* The salic-law late scans compiled (_salic.c): its interface, also given to cffi (cffi_build.py). */
#ifndef PATIENCE_SALIC_H
#define PATIENCE_SALIC_H
#include <stdint.h>

/* A position's limits: columns, cards in play (the columns and the stock), foundations, steps of one child. */
#define SL_MAX_COLS 9
#define SL_MAX_CARDS 104
#define SL_FOUNDATIONS 8
#define SL_MAX_KIDS 96
#define SL_MAX_STEPS 112
#define SL_KEY_MAX 132

/* sl_run's answers, and sl_new's and sl_children's errors */
#define SL_MORE 0
#define SL_WON 1
#define SL_EXHAUSTED 2
#define SL_BAD (-1)
#define SL_NOMEM (-2)
#define SL_FINISHED (-3)

/* A step of a line, 3 bytes (kind, a, b): column a's free card to foundation b (HOME) or onto column b (COLUMN),
 * 1-based; a deal; a redeal. */
#define SL_STEP_HOME 0
#define SL_STEP_COLUMN 1
#define SL_STEP_DEAL 2
#define SL_STEP_REDEAL 3

/* The scans: playouts (search's Playouts) or a depth-first scan by kind (search's _DepthFirst, by_kind=True,
 * noise 0). A playout draws by score plus noise below `noise` (by_kind 0), by kind (by_kind 1), or as the simple
 * player draws (next_kind > 0); stock_last is the share of steps that leave the stock for last. */
#define SL_PLAYOUTS 0
#define SL_DEPTH_FIRST 1

typedef struct {
    int scan;
    uint32_t seed;
    int noise;
    double stock_last;
    int by_kind;
    double next_kind;
    int on_visit;
} sl_config;

/* The game's rules that matter here: picture-gallery's lone-king filler, and the redeals it allows. */
typedef struct {
    int lone_king_rule;
    int redeals_allowed;
} sl_rules;

/* One child of a position (sl_children, for the tests): its steps (the move, then the safe moves), its kind
 * (playouts.kind_of), its score and whether it is won after the safe moves, its key as bytes, its foundations'
 * lengths in order. */
typedef struct {
    uint8_t steps[3 * SL_MAX_STEPS];
    int nsteps;
    int kind;
    int score;
    int won;
    uint8_t key[SL_KEY_MAX];
    int klen;
    uint8_t fnd[SL_FOUNDATIONS];
} sl_child;

typedef struct sl_scan sl_scan;

/* A position: the columns' cards concatenated (each from its head), then the stock's (its top first); lens[i] the
 * length of column i; fnd the foundations' lengths, in order. */
sl_scan *sl_new(const uint8_t *cards, const int *lens, int ncols, int nstock, const uint8_t *fnd, int redeals,
                int fresh, const sl_rules *rules, const sl_config *cfg, int *err);
/* Expand up to n positions: SL_MORE, SL_WON (the line: sl_line), SL_EXHAUSTED, SL_NOMEM or SL_FINISHED (won
 * before: a scan ends with its win). */
int sl_run(sl_scan *s, long long n);
long long sl_expanded(const sl_scan *s);
/* The won line, 3 bytes a step; valid until the scan is freed. */
const uint8_t *sl_line(const sl_scan *s, int *nsteps);
void sl_free(sl_scan *s);
/* The children of a position, in Tribunal.successors' order: their count, or SL_BAD. */
int sl_children(const uint8_t *cards, const int *lens, int ncols, int nstock, const uint8_t *fnd, int redeals,
                int fresh, const sl_rules *rules, sl_child *out);
#endif
