/* Part of _kingchain.c (which includes its parts once, in order, as one translation unit, so that the compiler
 * inlines across them as in one file): CPython's random.Random in C (the scans' shuffles must draw as Python's do). */
#ifndef PATIENCE_KINGCHAIN_RANDOM_H
#define PATIENCE_KINGCHAIN_RANDOM_H

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int mti;
} Rng;

static void mt_init_genrand(Rng *r, uint32_t s) {
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++) r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->mti = MT_N;
}

/* random.Random(seed) for 0 <= seed < 2**32: init_by_array with the one 32-bit word of the seed */
static void mt_seed(Rng *r, uint32_t seed) {
    uint32_t key[1] = {seed};
    const int key_len = 1;
    mt_init_genrand(r, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > key_len ? MT_N : key_len; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
        if (j >= key_len) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u;
}

static uint32_t mt_next(Rng *r) {
    static const uint32_t mag01[2] = {0u, 0x9908b0dfu};
    uint32_t y;
    if (r->mti >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (r->mt[MT_N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
        r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        r->mti = 0;
    }
    y = r->mt[r->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

/* _randbelow(n) for 1 <= n < 2**31: getrandbits(n.bit_length()) until below n */
static uint32_t mt_below(Rng *r, uint32_t n) {
    int k = 0;
    while ((n >> k) != 0) k++;
    uint32_t v = mt_next(r) >> (32 - k);
    while (v >= n) v = mt_next(r) >> (32 - k);
    return v;
}

#endif
