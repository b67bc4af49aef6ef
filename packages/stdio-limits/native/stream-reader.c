/*
 * wharf-stream-reader: the reading half of a stdio-limits capture, for streams too fast for
 * Node's event loop. It reads its standard input (the captured process's stdout or stderr,
 * handed over by captureProcess) with blocking 1 MiB reads until end of stream, counts bytes
 * and newlines, keeps the last TAIL bytes, and appends up to SPILL_CAP bytes to file
 * descriptor 3 from byte OFFSET on when SPILL_CAP is not "-". It never stops reading before the
 * end, so the writer is never blocked for long.
 *
 *   wharf-stream-reader TAIL SPILL_CAP OFFSET      (wharf-stream-reader --probe exits 0)
 *
 * Standard output: "R\n" once it is ready to be stopped (SIGTERM), "P <total>\n" lines as the
 * stream grows, then one final record
 * "E <total> <newlines> <last byte or -1> <stored> <dropped> <errno> <tail length>\n"
 * followed by the tail bytes. SIGTERM ends reading early; the record is still written.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1 << 20)
#define PROGRESS_EVERY (4u << 20)

static volatile sig_atomic_t stopping = 0;
/* Closing the stream also ends a read the signal arrived just before. */
static void on_term(int signal_number) {
  (void)signal_number;
  stopping = 1;
  close(0);
}

/* Writes everything, at `offset` when it is not negative (then `*offset` moves on). */
static int write_all(int fd, const char *bytes, size_t length, off_t *offset) {
  while (length > 0) {
    ssize_t written = offset ? pwrite(fd, bytes, length, *offset) : write(fd, bytes, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes += written;
    length -= (size_t)written;
    if (offset) *offset += written;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) return 0;
  if (argc != 4) {
    fprintf(stderr, "usage: wharf-stream-reader TAIL SPILL_CAP OFFSET\n");
    return 2;
  }
  size_t tail_capacity = strtoull(argv[1], NULL, 10);
  int spill = strcmp(argv[2], "-") != 0;
  uint64_t spill_cap = spill ? strtoull(argv[2], NULL, 10) : 0;
  off_t spill_offset = (off_t)strtoll(argv[3], NULL, 10);

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_term; /* no SA_RESTART: a blocked read returns EINTR */
  sigaction(SIGTERM, &action, NULL);
  signal(SIGPIPE, SIG_IGN);

  char *block = malloc(BLOCK);
  char *ring = malloc(tail_capacity > 0 ? tail_capacity : 1);
  if (block == NULL || ring == NULL) return 3;
  size_t ring_start = 0, ring_length = 0;
  uint64_t total = 0, newlines = 0, stored = 0, dropped = 0, next_progress = PROGRESS_EVERY;
  int last = -1, spill_error = 0;
  write_all(1, "R\n", 2, NULL);

  while (!stopping) {
    ssize_t count = read(0, block, BLOCK);
    if (count < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (count == 0) break;
    size_t length = (size_t)count;
    total += length;
    last = (unsigned char)block[length - 1];
    for (const char *at = block, *end = block + length; (at = memchr(at, '\n', (size_t)(end - at))) != NULL; at++)
      newlines++;
    if (tail_capacity > 0) {
      const char *source = block;
      size_t take = length;
      if (take >= tail_capacity) {
        source = block + take - tail_capacity;
        take = tail_capacity;
        ring_start = 0;
        ring_length = 0;
      }
      size_t end = (ring_start + ring_length) % tail_capacity;
      size_t first = tail_capacity - end < take ? tail_capacity - end : take;
      memcpy(ring + end, source, first);
      memcpy(ring, source + first, take - first);
      size_t grown = ring_length + take;
      if (grown > tail_capacity) {
        ring_start = (ring_start + grown - tail_capacity) % tail_capacity;
        ring_length = tail_capacity;
      } else {
        ring_length = grown;
      }
    }
    if (spill && spill_error == 0) {
      uint64_t room = spill_cap - stored;
      size_t keep = length < room ? length : (size_t)room;
      if (keep > 0) spill_error = write_all(3, block, keep, &spill_offset);
      if (spill_error == 0) {
        stored += keep;
        dropped += length - keep;
      } else {
        dropped += length;
      }
    } else if (spill) {
      dropped += length;
    }
    if (total >= next_progress) {
      char line[32];
      int size = snprintf(line, sizeof line, "P %llu\n", (unsigned long long)total);
      write_all(1, line, (size_t)size, NULL);
      next_progress = total + PROGRESS_EVERY;
    }
  }

  char record[160];
  int size = snprintf(record, sizeof record, "E %llu %llu %d %llu %llu %d %zu\n", (unsigned long long)total,
                      (unsigned long long)newlines, last, (unsigned long long)stored, (unsigned long long)dropped,
                      spill_error, ring_length);
  if (write_all(1, record, (size_t)size, NULL) != 0) return 4;
  size_t first = tail_capacity - ring_start < ring_length ? tail_capacity - ring_start : ring_length;
  if (write_all(1, ring + ring_start, first, NULL) != 0 || write_all(1, ring, ring_length - first, NULL) != 0)
    return 4;
  return 0;
}
