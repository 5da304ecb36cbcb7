// A measuring device, not part of the product: does the transcoder's walk hide in SHA-256's latency when the two
// are interleaved a few blocks at a time, as one instruction stream? SHA-NI's rounds form one long dependency chain,
// so an out-of-order core might run the walk's independent work beside them for free; .NET has no SHA-NI intrinsics,
// so the question is asked in C, with OpenSSL's SHA-256 (the code .NET's HMAC runs on Linux) and a C copy of the
// walk's block loop (CanonicalRun.FindClosingQuotes) followed by stand-ins of its per-widget checks.
//
// It prints, each the median over the rounds, the µs hashing the body in 16 KiB updates costs, and what the body
// costs beyond that: walked 16 KiB at a time, each piece just after it is hashed (today's order, the piece hot for the
// walk), and walked while it is hashed `step` bytes at a time (each piece as the walk reaches it, which is looked at
// every block and after each widget). docs/floor-history.md, "The walk beside the hash", has its figures.
//
//   dotnet src/Signing.Payload/bin/Release/net10.0/Signing.Payload.dll --widgets 3000 --seed 1 --out /tmp/body.json
//   gcc -O2 -march=native -o /tmp/sha-interleave bench/sha-interleave/sha-interleave.c -lcrypto
//   for step in 16384 64 128 256 512 1024 4096; do /tmp/sha-interleave /tmp/body.json 100 $step; done
#define OPENSSL_SUPPRESS_DEPRECATED
#include <immintrin.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { Members = 12, WidgetsPerWalk = 8, MostClosingPerBlock = 16 };

static uint8_t *body;
static size_t length;
static size_t step; // the bytes a call to hash_step hashes: 16 KiB in today's order
static uint8_t prefixes[Members][16];
static int closing[WidgetsPerWalk * Members + MostClosingPerBlock];
static SHA256_CTX sha;
static size_t hashed;
static volatile uint64_t sink;
static uint8_t digest[SHA256_DIGEST_LENGTH];

static double microseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

// Hashes the next step bytes once the walk has reached them, if the body has them: each piece is hashed just before
// it is walked, speculatively, as a product would have to.
static inline void hash_step(size_t walked) {
    if (hashed <= walked && hashed + step <= length) {
        SHA256_Update(&sha, body + hashed, step);
        hashed += step;
    }
}

// The walk's first stage: every fourth quote closes a value; three slots a block, more only for short values.
static int find_closing(size_t start, int most) {
    uint64_t pattern = 0x1111111111111111ULL << 3;
    __m256i least = _mm256_set1_epi8(127), least_from_backslash = _mm256_set1_epi8(-1);
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\');
    int *next = closing, *enough = closing + most;
    size_t block = start;
    for (; block < length && next < enough; block += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(body + block));
        __m256i b = _mm256_loadu_si256((const __m256i *)(body + block + 32));
        least = _mm256_min_epi8(least, _mm256_min_epi8(a, b));
        __m256i from_backslash = _mm256_min_epu8(_mm256_xor_si256(a, backslash), _mm256_xor_si256(b, backslash));
        least_from_backslash = _mm256_min_epu8(least_from_backslash, from_backslash);
        uint64_t quotes = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, quote)) |
                          ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, quote)) << 32);
        uint64_t closes = _pdep_u64(pattern, quotes);
        int count = __builtin_popcountll(quotes);
        pattern = (pattern >> (count & 63)) | (pattern << ((64 - count) & 63));
        int n = __builtin_popcountll(closes);
        next[0] = block + __builtin_ctzll(closes | (1ULL << 63));
        next[2] = block + 63 - __builtin_clzll(closes | 1);
        closes &= closes - 1;
        next[1] = block + __builtin_ctzll(closes | (1ULL << 63));
        for (int i = 2; i < n; i++) {
            closes &= closes - 1;
            next[i] = block + __builtin_ctzll(closes);
        }
        next += n;
        hash_step(block);
    }
    // The padding past the body is zeros, which are refused bytes: only the bit is kept, as the walk keeps it.
    __m256i refused = _mm256_or_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(' '), least),
                                      _mm256_cmpeq_epi8(least_from_backslash, _mm256_setzero_si256()));
    sink += _mm256_testz_si256(refused, refused);
    return (int)(next - closing);
}

// The second stage for one widget: ten prefixes compared as the walk does; the head and the instant by stand-ins of
// the same loads (a 64-byte compare, two 16-byte loads), not the real checks.
static int is_widget(size_t start, const int *quotes) {
    __m128i differs = _mm_setzero_si128();
    for (int member = 1; member <= 10; member++)
        differs = _mm_or_si128(differs, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(body + quotes[member] + 1)),
                                                      _mm_load_si128((const __m128i *)prefixes[member + 1])));
    differs = _mm_and_si128(differs, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0));
    __m256i head0 = _mm256_loadu_si256((const __m256i *)(body + start));
    __m256i head1 = _mm256_loadu_si256((const __m256i *)(body + start + 32));
    sink += _mm256_movemask_epi8(_mm256_cmpeq_epi8(head0, _mm256_set1_epi8('"'))) ^
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(head1, _mm256_set1_epi8('-')));
    size_t end = quotes[Members - 1];
    __m128i instant0 = _mm_loadu_si128((const __m128i *)(body + end - 20));
    __m128i instant1 = _mm_loadu_si128((const __m128i *)(body + end - 16));
    sink += _mm_movemask_epi8(_mm_cmpgt_epi8(instant0, instant1));
    return _mm_testz_si128(differs, differs) && body[end + 1] == '}';
}

// The body hashed and walked, eight widgets a walk, hashing step bytes at a time as the walk goes; returns how many
// widgets it checked.
static int walk_and_hash(size_t hash_step_bytes) {
    step = hash_step_bytes;
    SHA256_Init(&sha);
    hashed = 0;
    size_t start = strlen("{\"widgets\":[");
    int widgets = 0;
    for (;;) {
        int whole = find_closing(start, WidgetsPerWalk * Members) / Members;
        if (whole > WidgetsPerWalk) whole = WidgetsPerWalk;
        for (int i = 0; i < whole; i++) {
            const int *quotes = closing + i * Members;
            if (!is_widget(start, quotes)) {
                fprintf(stderr, "not a canonical widget at byte %zu\n", start);
                exit(1);
            }
            widgets++;
            size_t end = quotes[Members - 1];
            hash_step(end);
            start = end + 3;
            if (body[end + 2] != ',') return widgets;
        }
        if (whole < WidgetsPerWalk) return widgets;
    }
}

static void hash_rest(void) {
    SHA256_Update(&sha, body + hashed, length - hashed);
    SHA256_Final(digest, &sha);
}

static void hash_all(size_t update) {
    SHA256_Init(&sha);
    for (hashed = 0; hashed + update <= length; hashed += update) SHA256_Update(&sha, body + hashed, update);
    hash_rest();
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: sha-interleave BODY ROUNDS STEP\n");
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) {
        perror(argv[1]);
        return 2;
    }
    fseek(file, 0, SEEK_END);
    length = ftell(file);
    fseek(file, 0, SEEK_SET);
    body = aligned_alloc(64, length + 128);
    memset(body, 0, length + 128);
    if (fread(body, 1, length, file) != length) return 2;
    int rounds = atoi(argv[2]);
    size_t beside_step = strtoul(argv[3], NULL, 10);
    const char *names[Members] = {"id", "property0", "property1", "property2", "property3", "property4",
                                  "property5", "property6", "property7", "property8", "property9", "createdUtc"};
    for (int member = 0; member < Members; member++) snprintf((char *)prefixes[member], 16, ",\"%s\":\"", names[member]);

    double *hash = calloc(rounds, sizeof(double)), *after = calloc(rounds, sizeof(double));
    double *beside = calloc(rounds, sizeof(double)), *ratio = calloc(rounds, sizeof(double));
    int widgets = 0;
    for (int round = 0; round < rounds; round++) {
        double t0 = microseconds();
        hash_all(16384);
        double t1 = microseconds();
        widgets = walk_and_hash(16384);
        hash_rest();
        double t2 = microseconds();
        uint8_t expected[SHA256_DIGEST_LENGTH];
        memcpy(expected, digest, sizeof expected);
        if (walk_and_hash(beside_step) != widgets) return 1;
        hash_rest();
        double t3 = microseconds();
        // Both orders hash every byte once: the same digest, or the times are not of the same work.
        if (memcmp(expected, digest, sizeof expected) != 0) {
            fprintf(stderr, "the digests differ\n");
            return 1;
        }
        hash[round] = t1 - t0;
        after[round] = (t2 - t1) - (t1 - t0);
        beside[round] = (t3 - t2) - (t1 - t0);
        ratio[round] = (t3 - t2) / (t2 - t1);
    }
    qsort(after, rounds, sizeof(double), ascending);
    qsort(beside, rounds, sizeof(double), ascending);
    qsort(ratio, rounds, sizeof(double), ascending);
    qsort(hash, rounds, sizeof(double), ascending);
    printf("%d widgets, %zu bytes, SHA-256 ", widgets, length);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) printf("%02x", digest[i]);
    printf(", step %zu B, medians of %d rounds: the hash alone %.1f us; beyond it, walked after it %.1f us, "
           "beside it %.1f us; beside / after %.3f\n",
           beside_step, rounds, hash[rounds / 2], after[rounds / 2], beside[rounds / 2], ratio[rounds / 2]);
    return 0;
}
