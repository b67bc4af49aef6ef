/*
 * SHA-256 (FIPS 180-4). The compression function runs on the x86 SHA extensions where the CPU
 * has them (about as fast as OpenSSL, so as Node's own hashing), and in portable C elsewhere.
 */
#include "sha256.h"

#include <stdio.h>
#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROTATE_RIGHT(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
  uint32_t w[64];
  while (blocks-- > 0) {
    for (int i = 0; i < 16; i++)
      w[i] = (uint32_t)data[4 * i] << 24 | (uint32_t)data[4 * i + 1] << 16 | (uint32_t)data[4 * i + 2] << 8 |
             (uint32_t)data[4 * i + 3];
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = ROTATE_RIGHT(w[i - 15], 7) ^ ROTATE_RIGHT(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = ROTATE_RIGHT(w[i - 2], 17) ^ ROTATE_RIGHT(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
      uint32_t t1 = h + (ROTATE_RIGHT(e, 6) ^ ROTATE_RIGHT(e, 11) ^ ROTATE_RIGHT(e, 25)) + ((e & f) ^ (~e & g)) +
                    round_constants[i] + w[i];
      uint32_t t2 = (ROTATE_RIGHT(a, 2) ^ ROTATE_RIGHT(a, 13) ^ ROTATE_RIGHT(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
    data += 64;
  }
}

static void (*compress)(uint32_t state[8], const uint8_t *data, size_t blocks) = compress_portable;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

/*
 * The state lives in two registers as the SHA instructions want it, ABEF and CDGH. Each of the
 * 16 groups runs 4 rounds on 4 message words; from group 4 on the words are derived from the
 * previous four groups' (sha256msg1/msg2).
 */
__attribute__((target("sha,sse4.1"))) static void compress_sha_extensions(uint32_t state[8], const uint8_t *data,
                                                                            size_t blocks) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  while (blocks-- > 0) {
    __m128i saved_abef = abef, saved_cdgh = cdgh, words[4];
#pragma GCC unroll 16
    for (int group = 0; group < 16; group++) {
      __m128i *current = &words[group & 3];
      if (group < 4) {
        *current = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), byte_swap);
      } else {
        __m128i previous = words[(group + 3) & 3];
        __m128i sum = _mm_add_epi32(_mm_sha256msg1_epu32(*current, words[(group + 1) & 3]),
                                    _mm_alignr_epi8(previous, words[(group + 2) & 3], 4));
        *current = _mm_sha256msg2_epu32(sum, previous);
      }
      __m128i message = _mm_add_epi32(*current, _mm_loadu_si128((const __m128i *)&round_constants[4 * group]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
    }
    abef = _mm_add_epi32(abef, saved_abef);
    cdgh = _mm_add_epi32(cdgh, saved_cdgh);
    data += 64;
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

static int cpu_has_sha_extensions(void) {
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b >> 29) & 1;
}
#else
static int cpu_has_sha_extensions(void) { return 0; }
#endif

static int portable_only = 0;

void sha256_use_portable(void) { portable_only = 1; }

const char *sha256_implementation(void) {
  return !portable_only && cpu_has_sha_extensions() ? "sha-extensions" : "portable";
}

void sha256_init(sha256_context *context) {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (!portable_only && cpu_has_sha_extensions()) compress = compress_sha_extensions;
#endif
  memcpy(context->state, initial, sizeof initial);
  context->length = 0;
  context->buffered = 0;
}

void sha256_update(sha256_context *context, const void *data, size_t length) {
  const uint8_t *bytes = data;
  context->length += length;
  if (context->buffered > 0) {
    size_t take = 64 - context->buffered < length ? 64 - context->buffered : length;
    memcpy(context->buffer + context->buffered, bytes, take);
    context->buffered += take;
    bytes += take;
    length -= take;
    if (context->buffered < 64) return;
    compress(context->state, context->buffer, 1);
    context->buffered = 0;
  }
  if (length >= 64) {
    compress(context->state, bytes, length / 64);
    bytes += length & ~(size_t)63;
    length &= 63;
  }
  memcpy(context->buffer, bytes, length);
  context->buffered = length;
}

void sha256_final(sha256_context *context, char hex[65]) {
  uint64_t bits = context->length * 8;
  uint8_t padding[72] = {0x80};
  size_t pad = (context->buffered < 56 ? 56 : 120) - context->buffered;
  for (int i = 0; i < 8; i++) padding[pad + i] = (uint8_t)(bits >> (56 - 8 * i));
  sha256_update(context, padding, pad + 8);
  for (int i = 0; i < 8; i++) snprintf(hex + 8 * i, 9, "%08x", (unsigned int)context->state[i]);
}
