/* Part of _captives.c (included once, in order, as one translation unit): a set of keys compared byte for byte
 * (the profile's key equality exactly, never a hash alone), and CPython's random.random(). */
#ifndef PATIENCE_CAPTIVES_SEEN_H
#define PATIENCE_CAPTIVES_SEEN_H

/* a slot: the key's hash (0: empty) and where its bytes are in the arena (offset << 16 | length) */
typedef struct {
    uint64_t hash;
    uint64_t at;
} Slot;

typedef struct {
    Slot *slots;
    size_t cap, n;
    uint8_t *arena;
    size_t used, room;
} Seen;

static uint64_t key_hash(const uint8_t *k, int len) {
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)len;
    int i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, k + i, 8);
        h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 32;
    }
    for (; i < len; i++) h = (h ^ k[i]) * UINT64_C(0x100000001b3);
    h ^= h >> 29;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 32;
    return h ? h : 1;
}

static int seen_init(Seen *s) {
    memset(s, 0, sizeof *s);
    s->cap = 256;
    s->slots = calloc(s->cap, sizeof(Slot));
    s->room = 16384;
    s->arena = malloc(s->room);
    return s->slots != NULL && s->arena != NULL;
}

static void seen_free(Seen *s) {
    free(s->slots);
    free(s->arena);
    memset(s, 0, sizeof *s);
}

static void seen_clear(Seen *s) {
    memset(s->slots, 0, s->cap * sizeof(Slot));
    s->n = 0;
    s->used = 0;
}

/* the slot of the key, or the empty slot where it would go */
static Slot *seen_find(const Seen *s, const uint8_t *k, int len, uint64_t h) {
    size_t j = (size_t)h & (s->cap - 1);
    for (;;) {
        Slot *e = &s->slots[j];
        if (!e->hash) return e;
        if (e->hash == h && (int)(e->at & 0xffff) == len && !memcmp(s->arena + (e->at >> 16), k, (size_t)len))
            return e;
        j = (j + 1) & (s->cap - 1);
    }
}

static int seen_has(const Seen *s, const uint8_t *k, int len) {
    return seen_find(s, k, len, key_hash(k, len))->hash != 0;
}

/* 1 if added, 0 if there already, -1 out of memory */
static int seen_add(Seen *s, const uint8_t *k, int len) {
    uint64_t h = key_hash(k, len);
    Slot *e = seen_find(s, k, len, h);
    if (e->hash) return 0;
    if (s->used + (size_t)len > s->room) {
        size_t room = s->room * 2;
        uint8_t *arena = realloc(s->arena, room);
        if (arena == NULL) return -1;
        s->arena = arena;
        s->room = room;
    }
    memcpy(s->arena + s->used, k, (size_t)len);
    e->hash = h;
    e->at = (uint64_t)s->used << 16 | (uint64_t)len;
    s->used += (size_t)len;
    s->n++;
    if (2 * s->n > s->cap) {
        size_t cap = s->cap * 2;
        Slot *slots = calloc(cap, sizeof(Slot));
        if (slots == NULL) return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i].hash) continue;
            size_t j = (size_t)s->slots[i].hash & (cap - 1);
            while (slots[j].hash) j = (j + 1) & (cap - 1);
            slots[j] = s->slots[i];
        }
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    return 1;
}

/* random.Random.random(): 53 bits from two draws */
static double mt_random(Rng *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

#endif
