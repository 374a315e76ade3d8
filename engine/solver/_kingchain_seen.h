/* Part of _kingchain.c (which includes its parts once, in order, as one translation unit, so that the compiler
 * inlines across them as in one file): the transposition table. */
#ifndef PATIENCE_KINGCHAIN_SEEN_H
#define PATIENCE_KINGCHAIN_SEEN_H

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

#endif
