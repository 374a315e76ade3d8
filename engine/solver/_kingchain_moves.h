/* Part of _kingchain.c (which includes its parts once, in order, as one translation unit, so that the compiler
 * inlines across them as in one file): move generation (kingchain.moves). */
#ifndef PATIENCE_KINGCHAIN_MOVES_H
#define PATIENCE_KINGCHAIN_MOVES_H

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

#endif
