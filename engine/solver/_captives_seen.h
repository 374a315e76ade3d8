/* Part of _captives.c (included once, in order, as one translation unit): a set of keys compared byte for byte
 * (the profile's key equality exactly, never a hash alone), and CPython's random.random(). */
#ifndef PATIENCE_CAPTIVES_SEEN_H
#define PATIENCE_CAPTIVES_SEEN_H

/* a slot: the position's hash (pos_hash; 0: empty) and where its bytes are in the arena (offset << 16 | length) */
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

/* The slot of p's key, or the empty slot where it would go. The key's bytes are built into `key` only when a slot
 * of the same hash is met (*len < 0 until then). */
static Slot *seen_find(const Seen *s, const Pos *p, uint64_t h, uint8_t *key, int *len) {
    size_t j = (size_t)h & (s->cap - 1);
    for (;;) {
        Slot *e = &s->slots[j];
        if (!e->hash) return e;
        if (e->hash == h) {
            if (*len < 0) *len = key_of(p, key);
            if ((int)(e->at & 0xffff) == *len && !memcmp(s->arena + (e->at >> 16), key, (size_t)*len)) return e;
        }
        j = (j + 1) & (s->cap - 1);
    }
}

/* whether p's key is there (`key`: scratch room for it) */
static int seen_has(const Seen *s, const Pos *p, uint8_t *key) {
    int len = -1;
    return seen_find(s, p, pos_hash(p), key, &len)->hash != 0;
}

/* 1 if p's key was added, 0 if there already, -1 out of memory */
static int seen_add(Seen *s, const Pos *p, uint8_t *key) {
    uint64_t h = pos_hash(p);
    int len = -1;
    Slot *e = seen_find(s, p, h, key, &len);
    if (e->hash) return 0;
    if (len < 0) len = key_of(p, key);
    if (s->used + (size_t)len > s->room) {
        size_t room = s->room * 2;
        uint8_t *arena = realloc(s->arena, room);
        if (arena == NULL) return -1;
        s->arena = arena;
        s->room = room;
    }
    memcpy(s->arena + s->used, key, (size_t)len);
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
