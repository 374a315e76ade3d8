/* The king-chain scans (engine/solver/kingchain.py and search.py's _solve_king_chain) in C.
 *
 * The same search step for step: the same move generation and order, the same settling, score, scans,
 * shuffles (CPython's Mersenne Twister and its shuffle/randrange) and turn-taking in slices; so for a given
 * budget in positions it gives the same outcome, the same line and the same count of expanded positions as
 * the pure-Python search. Only the transposition tables differ in their key: a 64-bit hash of the position
 * with the columns as a multiset (a sum of per-column hashes), where Python uses its own hash.
 *
 * Called through cffi (cffi_build.py); the GIL is released during the call. All memory is freed on
 * return, except the line in kc_result, which the caller frees with kc_free.
 *
 * This file is the entry (kc_solve: the turns of the scans) and includes the parts, each named after what it
 * holds, once and in this order: one translation unit, as the compiler inlines the hot steps across them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_kingchain.h"
#include "_kingchain_cards.h"
#include "_kingchain_random.h"
#include "_kingchain_position.h"
#include "_kingchain_moves.h"
#include "_kingchain_seen.h"
#include "_kingchain_bestfirst.h"
#include "_kingchain_scan.h"

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
    return hand_over(&sb, ends, sc->depth, out);
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
