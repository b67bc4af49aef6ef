/* SHA-256 (FIPS 180-4) for the stream reader: one context, fed in order, read out as hex. */
#ifndef WHARF_SHA256_H
#define WHARF_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t state[8];
  uint64_t length;
  uint8_t buffer[64];
  size_t buffered;
} sha256_context;

/* Forces the portable compression function (tests compare it with the accelerated one). */
void sha256_use_portable(void);
/* "sha-extensions" or "portable": what sha256_init will use. */
const char *sha256_implementation(void);
void sha256_init(sha256_context *context);
void sha256_update(sha256_context *context, const void *data, size_t length);
/* Writes the digest as 64 lowercase hex digits and a terminating NUL. */
void sha256_final(sha256_context *context, char hex[65]);

#endif
