/* Part of _captives.c (included once, in order, as one translation unit): a captives position, its moves in
 * Captives.successors' order, the safe settling (safe._captives_settle), the score (profiles._captives), the kinds
 * of moves (playouts.kind_of) and the key. */
#ifndef PATIENCE_CAPTIVES_POSITION_H
#define PATIENCE_CAPTIVES_POSITION_H

#define NCOLS 8
#define NSLOTS 8
#define NCAPT 7
#define COLMAX 32 /* CP_ROOT_COLUMN + 13: a column is a prefix of the root's and a run of at most 13 */
#define SEQMAX 104
#define COMPLETE 13
#define TURNS 2
#define NONE 255
#define WASTE_SRC 8
#define CAPT_SRC 9
#define MAX_KIDS 1024 /* far more than any position has (at most about 400) */
#define ALL_CARDS 104

#define RANK(c) ((c) % 13 + 1) /* 1 = ace .. 13 = king */
#define SUIT(c) ((c) / 13)

/* A king-row slot holds its king and its suit from the ace up: its length and suit say all. The stock and the
 * waste are one sequence: the waste (bottom first) then the stock (next card first); turning a card moves the
 * border, a redeal sets it to 0, and a waste card played leaves the sequence. */
typedef struct {
    uint8_t len[NCOLS];
    uint8_t col[NCOLS][COLMAX];
    uint8_t flen[NSLOTS];
    uint8_t fsuit[NSLOTS];
    uint8_t cap[NCAPT]; /* NONE once played */
    uint8_t redeals;
    uint8_t nw;   /* the waste's cards: seq[0 .. nw) */
    uint8_t nseq; /* the stock's: seq[nw .. nseq) */
    uint8_t seq[SEQMAX];
    /* each column's hash and the sequence's, kept up to date by apply: the position's hash (pos_hash) is theirs
     * and the rest's, the columns' taken as a multiset */
    uint64_t colh[NCOLS];
    uint64_t seqh;
} Pos;

static uint64_t mix64(uint64_t h) {
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

static uint64_t bytes_hash(const uint8_t *b, int n) {
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)n;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = mix64(h ^ w);
    }
    uint64_t w = 0;
    for (int j = 0; i < n; i++, j += 8) w |= (uint64_t)b[i] << j;
    return mix64(h ^ w);
}

static void col_rehash(Pos *p, int i) { p->colh[i] = bytes_hash(p->col[i], p->len[i]); }
static void seq_rehash(Pos *p) { p->seqh = bytes_hash(p->seq, p->nseq); }

/* a function of the key alone (equal keys, equal hashes) */
static uint64_t pos_hash(const Pos *p) {
    uint64_t h = 0, f, s, c = 0;
    for (int i = 0; i < NCOLS; i++) h += mix64(p->colh[i]);
    memcpy(&f, p->flen, 8);
    memcpy(&s, p->fsuit, 8);
    memcpy(&c, p->cap, NCAPT);
    h = mix64(h ^ f);
    h = mix64(h ^ s);
    h = mix64(h ^ c ^ (uint64_t)p->redeals << 56);
    h = mix64(h ^ p->seqh ^ (uint64_t)p->nw << 1);
    return h ? h : 1;
}

typedef struct {
    uint8_t type, a, b, n;
} Move;

/* a move and the safe moves after it */
typedef struct {
    Move m[1 + CP_SETTLE_MAX];
    int n;
} Moves;

static int top_of(const Pos *p, int i) { return p->len[i] ? p->col[i][p->len[i] - 1] : -1; }
static int waste_top(const Pos *p) { return p->nw ? p->seq[p->nw - 1] : -1; }

/* the card slot i takes next (-1: none, empty or complete) */
static int slot_next(const Pos *p, int i) {
    int n = p->flen[i];
    return n == 0 || n == COMPLETE ? -1 : p->fsuit[i] * 13 + n - 1;
}

static int is_won(const Pos *p) {
    if (p->nseq) return 0;
    for (int i = 0; i < NSLOTS; i++)
        if (p->flen[i] != COMPLETE) return 0;
    return 1;
}

/* -- the king row: which slots take which card (games.captives_play.king_row) --------------------------------- */

typedef struct {
    int ncard;
    int8_t card[NSLOTS], slot[NSLOTS]; /* (card, slot) in slot order: home_fits' lists, read per card */
    int empty;                         /* the first empty slot, -1 none */
} Row;

static void king_row(const Pos *p, Row *r) {
    uint64_t plain = 0;
    r->ncard = 0;
    r->empty = -1;
    for (int i = 0; i < NSLOTS; i++) {
        if (!p->flen[i]) {
            if (r->empty < 0) r->empty = i;
            continue;
        }
        int c = slot_next(p, i);
        if (c < 0) continue;
        if (i < NCAPT && p->cap[i] != NONE) {
            /* a slot with a captive under it is unlike any other */
        } else if (!(plain >> c & 1)) {
            plain |= (uint64_t)1 << c; /* slots with no captive waiting: only the first of those */
        } else {
            continue;
        }
        r->card[r->ncard] = (int8_t)c;
        r->slot[r->ncard++] = (int8_t)i;
    }
}

/* -- applying a move (checked when generated) ---------------------------------------------------------------------- */

static void seq_drop_waste_top(Pos *p) {
    memmove(p->seq + p->nw - 1, p->seq + p->nw, (size_t)(p->nseq - p->nw));
    p->nw--;
    p->nseq--;
    seq_rehash(p);
}

static void apply(Pos *p, Move m) {
    int c;
    switch (m.type) {
    case CP_HOME:
    case CP_KING_ROW: {
        if (m.a < WASTE_SRC) {
            c = p->col[m.a][--p->len[m.a]];
            col_rehash(p, m.a);
        } else if (m.a == WASTE_SRC) {
            c = waste_top(p);
            seq_drop_waste_top(p);
        } else {
            c = p->cap[m.a - CAPT_SRC];
            p->cap[m.a - CAPT_SRC] = NONE;
        }
        if (p->flen[m.b]++ == 0) p->fsuit[m.b] = (uint8_t)SUIT(c);
        break;
    }
    case CP_RUN:
        memcpy(p->col[m.b] + p->len[m.b], p->col[m.a] + p->len[m.a] - m.n, m.n);
        p->len[m.a] -= m.n;
        p->len[m.b] += m.n;
        col_rehash(p, m.a);
        col_rehash(p, m.b);
        break;
    case CP_WASTE_TO:
        p->col[m.b][p->len[m.b]++] = (uint8_t)waste_top(p);
        col_rehash(p, m.b);
        seq_drop_waste_top(p);
        break;
    case CP_STOCK:
        p->nw++;
        break;
    default: /* CP_REDEAL */
        p->nw = 0;
        p->redeals++;
        break;
    }
}

/* -- the moves in Captives.successors' order ----------------------------------------------------------------------- */

static int run_length(const Pos *p, int s) {
    const uint8_t *col = p->col[s];
    int i = p->len[s] - 1, n = 1, c = col[i];
    while (i > 0) {
        int t = col[i - 1];
        if (c != t - 1 || RANK(t) == 1) break;
        n++;
        i--;
        c = t;
    }
    return n;
}

static int moves_home(const Row *r, int src, int c, int king_row_move, Move *out, int k) {
    int found = 0;
    for (int j = 0; j < r->ncard; j++)
        if (r->card[j] == c) {
            out[k++] = (Move){CP_HOME, (uint8_t)src, (uint8_t)r->slot[j], 0};
            found = 1;
        }
    if (!found && king_row_move && RANK(c) == 13 && r->empty >= 0)
        out[k++] = (Move){CP_KING_ROW, (uint8_t)src, (uint8_t)r->empty, 0};
    return k;
}

/* every move of p in successors' order; none once won */
static int gen_moves(const Pos *p, Move *out) {
    int k = 0;
    if (is_won(p)) return 0;
    Row r;
    king_row(p, &r);
    int tops[NCOLS];
    for (int i = 0; i < NCOLS; i++) tops[i] = top_of(p, i);
    for (int i = 0; i < NCOLS; i++)
        if (tops[i] >= 0) k = moves_home(&r, i, tops[i], 1, out, k);
    if (p->nw) k = moves_home(&r, WASTE_SRC, waste_top(p), 1, out, k);
    for (int i = 0; i < NCAPT; i++)
        if (p->cap[i] != NONE && p->flen[i] == COMPLETE) k = moves_home(&r, CAPT_SRC + i, p->cap[i], 1, out, k);
    /* runs between columns: onto the top one rank above a card of the run in suit, or any tail onto an empty one */
    for (int s = 0; s < NCOLS; s++) {
        int top = tops[s];
        if (top < 0) continue;
        int run = run_length(p, s);
        int last = top + run < SUIT(top) * 13 + 12 ? top + run : SUIT(top) * 13 + 12;
        for (int d = 0; d < NCOLS; d++) {
            int t = tops[d];
            if (top < t && t <= last) {
                out[k++] = (Move){CP_RUN, (uint8_t)s, (uint8_t)d, (uint8_t)(t - top)};
            } else if (t < 0) {
                for (int n = 1; n <= run; n++) out[k++] = (Move){CP_RUN, (uint8_t)s, (uint8_t)d, (uint8_t)n};
            }
        }
    }
    if (p->nw) {
        int w = waste_top(p);
        int onto = RANK(w) != 13 ? w + 1 : -2;
        for (int d = 0; d < NCOLS; d++)
            if (tops[d] < 0 || tops[d] == onto) out[k++] = (Move){CP_WASTE_TO, 0, (uint8_t)d, 0};
    }
    if (p->nseq > p->nw)
        out[k++] = (Move){CP_STOCK, 0, 0, 0};
    else if (p->nw && p->redeals < TURNS)
        out[k++] = (Move){CP_REDEAL, 0, 0, 0};
    return k;
}

/* -- safe moves home (safe._captives_safe_from and safe._captives) ------------------------------------------------- */

/* What goes home safely on a king row with its captives: the cards (a mask), the slot each goes to (the first that
 * takes it), and the first released captive among them. Worked out again only when the king row or the captives
 * change: most children share both with their parent, as most settling steps do not. */
typedef struct {
    uint8_t row[2 * NSLOTS + NCAPT]; /* flen, fsuit, cap: what it was worked out for */
    int valid;
    uint64_t mask;
    int8_t to[52];
    Move freed;
    int has_freed;
} Safe;

static void safe_row(const Pos *p, uint8_t *row) {
    memcpy(row, p->flen, NSLOTS);
    memcpy(row + NSLOTS, p->fsuit, NSLOTS);
    memcpy(row + 2 * NSLOTS, p->cap, NCAPT);
}

static void safe_work_out(const Pos *p, Safe *sf) {
    int ncard = 0;
    int8_t card[NSLOTS], first[NSLOTS], many[NSLOTS], held[NSLOTS];
    for (int i = 0; i < NSLOTS; i++) {
        int c = slot_next(p, i);
        if (c < 0) continue;
        int held_here = i < NCAPT && p->cap[i] != NONE; /* a captive waits under it (the slot is not complete) */
        int j = 0;
        while (j < ncard && card[j] != c) j++;
        if (j == ncard) {
            card[j] = (int8_t)c;
            first[j] = (int8_t)i;
            many[j] = 0;
            held[j] = 0;
            ncard++;
        } else {
            many[j] = 1;
        }
        held[j] |= (int8_t)held_here;
    }
    sf->mask = 0;
    for (int j = 0; j < ncard; j++) {
        int c = card[j];
        if (RANK(c) != 1) {
            /* both cards one rank lower home: slots of this suit holding that rank */
            int below = RANK(c) - 1, home = 0;
            for (int i = 0; i < NSLOTS; i++)
                if (p->flen[i] && p->fsuit[i] == SUIT(c) && p->flen[i] >= below + 1) home++;
            if (home < 2) continue;
        }
        if (many[j] && held[j]) continue; /* slots that differ by the captive under one: the player chooses */
        sf->mask |= (uint64_t)1 << c;
        sf->to[c] = first[j];
    }
    sf->has_freed = 0;
    for (int i = 0; i < NCAPT && sf->mask; i++)
        if (p->cap[i] != NONE && p->flen[i] == COMPLETE && (sf->mask >> p->cap[i] & 1)) {
            sf->freed = (Move){CP_HOME, (uint8_t)(CAPT_SRC + i), (uint8_t)sf->to[p->cap[i]], 0};
            sf->has_freed = 1;
            break;
        }
}

/* the first safe move of p (a column's top, the waste's top, a released captive), 0 if none */
static int safe_move(const Pos *p, Safe *sf, Move *out) {
    uint8_t row[sizeof sf->row];
    safe_row(p, row);
    if (!sf->valid || memcmp(row, sf->row, sizeof row)) {
        memcpy(sf->row, row, sizeof row);
        safe_work_out(p, sf);
        sf->valid = 1;
    }
    uint64_t mask = sf->mask;
    if (!mask) return 0;
    for (int i = 0; i < NCOLS; i++)
        if (p->len[i]) {
            int c = p->col[i][p->len[i] - 1];
            if (mask >> c & 1) {
                *out = (Move){CP_HOME, (uint8_t)i, (uint8_t)sf->to[c], 0};
                return 1;
            }
        }
    if (p->nw) {
        int w = waste_top(p);
        if (mask >> w & 1) {
            *out = (Move){CP_HOME, WASTE_SRC, (uint8_t)sf->to[w], 0};
            return 1;
        }
    }
    if (sf->has_freed) *out = sf->freed;
    return sf->has_freed;
}

/* safe moves until none is left (at most CP_SETTLE_MAX), each added to `out` if given */
static void settle(Pos *p, Safe *sf, Moves *out) {
    Move m;
    for (int i = 0; i < CP_SETTLE_MAX && safe_move(p, sf, &m); i++) {
        apply(p, m);
        if (out) out->m[out->n++] = m;
    }
}

/* -- score, kinds ------------------------------------------------------------------------------------------------- */

static int score_of(const Pos *p) {
    int home = 0, disorder = 0, empty = 0;
    for (int i = 0; i < NSLOTS; i++) home += p->flen[i];
    for (int i = 0; i < NCOLS; i++) {
        const uint8_t *col = p->col[i];
        if (!p->len[i]) empty++;
        for (int j = 1; j < p->len[i]; j++)
            if (!(col[j] == col[j - 1] - 1 && RANK(col[j - 1]) != 1)) disorder++;
    }
    return 6 * (ALL_CARDS - home) + 2 * disorder - 3 * empty + 4 * p->redeals;
}

/* columns empty or down to a lone king */
static int free_columns(const Pos *p) {
    int n = 0;
    for (int i = 0; i < NCOLS; i++) n += !p->len[i] || (p->len[i] == 1 && RANK(p->col[i][0]) == 13);
    return n;
}

/* playouts._goes_home: whether `s-f` is legal in the child (a king needs an empty slot, another card a slot) */
static int goes_home(const Pos *child, int s) {
    if (is_won(child) || !child->len[s]) return 0;
    int c = top_of(child, s);
    if (RANK(c) == 13) {
        for (int i = 0; i < NSLOTS; i++)
            if (!child->flen[i]) return 1;
        return 0;
    }
    for (int i = 0; i < NSLOTS; i++)
        if (slot_next(child, i) == c) return 1;
    return 0;
}

/* playouts.kind_of, the child not settled yet */
static int kind_of(const Pos *child, Move m, int free) {
    switch (m.type) {
    case CP_HOME:
    case CP_KING_ROW:
        return 0;
    case CP_STOCK:
        return 3;
    case CP_REDEAL:
        return 4;
    default:
        if (free_columns(child) > free) return 1;
        if (m.type == CP_RUN && goes_home(child, m.a)) return 1;
        return 2;
    }
}

/* -- the key: the columns sorted, the king row, the captives, the turns, the waste's length, the sequence ----------- */

/* whether column a goes before column b in a key: by hash, then length, then cards (any order that ties only
 * equal columns will do: equal multisets of columns give equal keys) */
static int column_before(const Pos *p, int a, int b) {
    if (p->colh[a] != p->colh[b]) return p->colh[a] < p->colh[b];
    if (p->len[a] != p->len[b]) return p->len[a] < p->len[b];
    return memcmp(p->col[a], p->col[b], p->len[a]) < 0;
}

/* the key's bytes (at most CP_KEY_MAX: a position given holds at most 104 cards) and their count */
static int key_of(const Pos *p, uint8_t *out) {
    int order[NCOLS];
    for (int i = 0; i < NCOLS; i++) {
        int j = i;
        while (j > 0 && column_before(p, i, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    int k = 0;
    for (int i = 0; i < NCOLS; i++) {
        int c = order[i];
        out[k++] = p->len[c];
        memcpy(out + k, p->col[c], p->len[c]);
        k += p->len[c];
    }
    /* a slot: its length and its suit (0 while empty) */
    for (int i = 0; i < NSLOTS; i++) out[k++] = (uint8_t)(p->flen[i] | p->fsuit[i] << 4);
    memcpy(out + k, p->cap, NCAPT);
    k += NCAPT;
    out[k++] = p->redeals;
    out[k++] = p->nw;
    memcpy(out + k, p->seq, p->nseq);
    return k + p->nseq;
}

/* -- a position given from Python, checked ---------------------------------------------------------------------- */

static int read_position(const cp_position *in, Pos *p) {
    memset(p, 0, sizeof *p);
    int total = 0, at = 0;
    for (int i = 0; i < NCOLS; i++) {
        int n = in->col_lens[i];
        if (n < 0 || n > CP_ROOT_COLUMN) return 0;
        for (int j = 0; j < n; j++) {
            if (in->cards[at + j] >= 52) return 0;
            p->col[i][j] = in->cards[at + j];
        }
        p->len[i] = (uint8_t)n;
        at += n;
    }
    total += at;
    at = 0;
    for (int i = 0; i < NSLOTS; i++) {
        int n = in->found_lens[i];
        if (n < 0 || n > COMPLETE) return 0;
        const uint8_t *f = in->found + at;
        /* K, A, 2, .. of one suit */
        if (n && (f[0] >= 52 || RANK(f[0]) != 13)) return 0;
        for (int j = 1; j < n; j++)
            if (f[j] != SUIT(f[0]) * 13 + j - 1) return 0;
        p->flen[i] = (uint8_t)n;
        p->fsuit[i] = n ? (uint8_t)SUIT(f[0]) : 0;
        at += n;
    }
    total += at;
    if (in->nstock < 0 || in->nwaste < 0 || in->nstock + in->nwaste > SEQMAX) return 0;
    for (int j = 0; j < in->nwaste; j++) {
        if (in->waste[j] >= 52) return 0;
        p->seq[j] = in->waste[j];
    }
    for (int j = 0; j < in->nstock; j++) {
        if (in->stock[j] >= 52) return 0;
        p->seq[in->nwaste + j] = in->stock[j];
    }
    p->nw = (uint8_t)in->nwaste;
    p->nseq = (uint8_t)(in->nwaste + in->nstock);
    total += p->nseq;
    for (int i = 0; i < NCAPT; i++) {
        int c = in->captives[i];
        if (c < -1 || c >= 52) return 0;
        p->cap[i] = c < 0 ? NONE : (uint8_t)c;
        total += c >= 0;
    }
    if (in->redeals < 0 || in->redeals > 200 || total > ALL_CARDS) return 0;
    p->redeals = (uint8_t)in->redeals;
    for (int i = 0; i < NCOLS; i++) col_rehash(p, i);
    seq_rehash(p);
    return 1;
}

#endif
