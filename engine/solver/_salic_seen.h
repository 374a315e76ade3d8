/* Part of _salic.c (included once, in order, as one translation unit): a set of keys compared exactly (the
 * Python scans' set of the profile's keys), the keys' bytes kept in an arena. */
#ifndef PATIENCE_SALIC_SEEN_H
#define PATIENCE_SALIC_SEEN_H

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_bytes(const uint8_t *b, int n) {
    uint64_t h = 0x243f6a8885a308d3ull ^ (uint64_t)n;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, b + i, (size_t)(n - i));
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    }
    return mix(h);
}

/* A key: its bytes and their hash. */
typedef struct {
    uint64_t h;
    int n;
    uint8_t b[SL_KEY_MAX];
} Key;

static inline void make_key(const Pos *p, Key *k) {
    k->n = key_of(p, k->b);
    k->h = hash_bytes(k->b, k->n);
}

typedef struct {
    uint64_t h;
    uint64_t at; /* 1 + the key's offset in the arena; 0: an empty slot */
} Slot;

typedef struct {
    Slot *slots;
    size_t cap, n;
    uint8_t *arena; /* each key: its length, then its bytes */
    size_t used, room;
} Seen;

static int seen_init(Seen *s) {
    memset(s, 0, sizeof *s);
    s->cap = 256;
    s->slots = calloc(s->cap, sizeof(Slot));
    s->room = 4096;
    s->arena = malloc(s->room);
    return s->slots != NULL && s->arena != NULL;
}

static void seen_free(Seen *s) {
    free(s->slots);
    free(s->arena);
    s->slots = NULL;
    s->arena = NULL;
}

/* Empty again, keeping the memory (a playout's restart). */
static void seen_clear(Seen *s) {
    if (s->cap > 1024 && 8 * s->n < s->cap) { /* a long playout's table: no need to wipe all of it each time */
        Slot *slots = calloc(1024, sizeof(Slot));
        if (slots != NULL) {
            free(s->slots);
            s->slots = slots;
            s->cap = 1024;
            s->n = 0;
        }
    }
    if (s->n) memset(s->slots, 0, s->cap * sizeof(Slot));
    s->n = 0;
    s->used = 0;
}

static inline int slot_is(const Seen *s, const Slot *e, const Key *k) {
    const uint8_t *b = s->arena + e->at - 1;
    return e->h == k->h && b[0] == k->n && memcmp(b + 1, k->b, (size_t)k->n) == 0;
}

static int seen_has(const Seen *s, const Key *k) {
    size_t mask = s->cap - 1, j = (size_t)k->h & mask;
    for (; s->slots[j].at; j = (j + 1) & mask)
        if (slot_is(s, &s->slots[j], k)) return 1;
    return 0;
}

static int seen_grow(Seen *s) {
    size_t cap = s->cap * 2, mask = cap - 1;
    Slot *slots = calloc(cap, sizeof(Slot));
    if (slots == NULL) return 0;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i].at) continue;
        size_t j = (size_t)s->slots[i].h & mask;
        while (slots[j].at) j = (j + 1) & mask;
        slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 1;
}

/* 1 if added, 0 if there already, -1 out of memory. */
static int seen_add(Seen *s, const Key *k) {
    if (2 * (s->n + 1) > s->cap && !seen_grow(s)) return -1;
    if (s->used + 1 + (size_t)k->n > s->room) {
        size_t room = s->room * 2;
        uint8_t *arena = realloc(s->arena, room);
        if (arena == NULL) return -1;
        s->arena = arena;
        s->room = room;
    }
    size_t mask = s->cap - 1, j = (size_t)k->h & mask;
    for (; s->slots[j].at; j = (j + 1) & mask)
        if (slot_is(s, &s->slots[j], k)) return 0;
    s->arena[s->used] = (uint8_t)k->n;
    memcpy(s->arena + s->used + 1, k->b, (size_t)k->n);
    s->slots[j] = (Slot){k->h, s->used + 1};
    s->used += 1 + (size_t)k->n;
    s->n++;
    return 1;
}

#endif
