/*
 * wharf-stream-reader: the reading half of a stdio-limits capture, for streams too fast for
 * Node's event loop. It reads its standard input (the captured process's stdout or stderr,
 * handed over by captureProcess) with blocking 1 MiB reads until end of stream, counts bytes
 * and newlines and keeps the last TAIL bytes. It never stops reading before the end, so the
 * writer is never blocked for long.
 *
 *   wharf-stream-reader --probe                  prints what it can do ("gzip" when built with
 *                                                zlib, and which sha256), exits 0
 *   wharf-stream-reader TAIL                     no spill
 *   wharf-stream-reader TAIL plain ROOM          spill as it is
 *   wharf-stream-reader TAIL gzip ROOM LEVEL     spill gzip-compressed at LEVEL (1-9)
 *
 * With a spill, file descriptor 3 is the spill file (open for reading and writing) and file
 * descriptor 4 a pipe on which Node writes one line once its own part of the file is on disk:
 * "<stream bytes> <file bytes>" (or "-" when the spill cannot go on). The reader hashes that
 * part back (sha256 of the stream bytes, inflating a gzip file), then stores up to ROOM more
 * stream bytes after it and hashes them as it stores them. A gzip spill is written as gzip
 * members of at most MEMBER stream bytes, compressed by worker threads, 1 MiB at a time, while
 * the reader reads on; a file of several members is a valid gzip file (as `cat a.gz b.gz`
 * makes) and reads back as the whole stream.
 *
 * Standard output: "R\n" once it is ready to be stopped (SIGTERM), "P <total>\n" lines as the
 * stream grows, then one final record
 * "E <total> <newlines> <last byte or -1> <stored> <dropped> <error> <sha256 or -> <tail length>\n"
 * followed by the tail bytes. <error> is 0, an errno value, or -1 when the part of the spill
 * written before did not read back as described. SIGTERM ends reading early; the record is
 * still written. WHARF_SHA256_PORTABLE=1 in the environment disables the accelerated sha256.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef WHARF_WITH_ZLIB
#include <zlib.h>
#endif

#include "sha256.h"

#define BLOCK (1 << 20)
/*
 * gzip members hold at most this many stream bytes: under zlib's 64 KiB window buffer less its
 * lookahead, so that zlib never slides its window (and rehashes) within a member. That halves
 * its cost on repetitive output, for files about 3 % larger on typical text.
 */
#define MEMBER 65024
#define PROGRESS_EVERY (4u << 20)
#define MAX_WORKERS 4
#define SPILL_FD 3
#define GO_FD 4
/* <error> when the part of the spill written before does not read back as described. */
#define PREFIX_MISMATCH (-1)

enum spill_mode { SPILL_NONE, SPILL_PLAIN, SPILL_GZIP };

static volatile sig_atomic_t stopping = 0;
/* Closing the stream also ends a read the signal arrived just before. */
static void on_term(int signal_number) {
  (void)signal_number;
  stopping = 1;
  close(0);
}

/* Writes everything, at `*offset` when `offset` is given (which then moves on). */
static int write_all(int fd, const void *data, size_t length, off_t *offset) {
  const char *bytes = data;
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

/*
 * The spill: where its bytes go, what is stored, and its hash. With gzip, `offset`, `stored`,
 * `write_error` and `hash` (once the part written before is hashed) belong to the worker whose
 * block's turn it is, so that hashing runs beside reading (the main thread reads them once the
 * workers have ended); everything else to the main thread.
 */
static struct {
  enum spill_mode mode;
  uint64_t room;   /* stream bytes that may still be stored */
  int level;
  off_t offset;    /* file offset of the next bytes written */
  uint64_t stored; /* stream bytes written (by this process) */
  int error;       /* reading the earlier part back, or writing a plain spill */
  int write_error; /* compressing or writing a gzip block */
  sha256_context hash;
} spill;

/* Reads Node's "<stream bytes> <file bytes>" line; false when Node has no part to go on from. */
static int read_go(uint64_t *stream_bytes, uint64_t *file_bytes) {
  char line[64];
  size_t length = 0;
  while (length < sizeof line - 1) {
    ssize_t count = read(GO_FD, line + length, sizeof line - 1 - length);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    length += (size_t)count;
    if (memchr(line, '\n', length) != NULL) break;
  }
  line[length] = '\0';
  unsigned long long stream = 0, file = 0;
  if (sscanf(line, "%llu %llu", &stream, &file) != 2) return 0;
  *stream_bytes = stream;
  *file_bytes = file;
  return 1;
}

/* Hashes the plain file's first `file_bytes` bytes, which must be the first `stream_bytes` of the stream. */
static int hash_plain_prefix(unsigned char *buffer, uint64_t stream_bytes, uint64_t file_bytes) {
  if (stream_bytes != file_bytes) return PREFIX_MISMATCH;
  for (uint64_t done = 0; done < file_bytes;) {
    size_t want = file_bytes - done < BLOCK ? (size_t)(file_bytes - done) : BLOCK;
    ssize_t count = pread(SPILL_FD, buffer, want, (off_t)done);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return errno;
    if (count == 0) return PREFIX_MISMATCH;
    sha256_update(&spill.hash, buffer, (size_t)count);
    done += (uint64_t)count;
  }
  return 0;
}

#ifdef WHARF_WITH_ZLIB
/* Inflates the gzip file's first `file_bytes` bytes (whole members) and hashes them. */
static int hash_gzip_prefix(unsigned char *buffer, uint64_t stream_bytes, uint64_t file_bytes) {
  z_stream inflater;
  memset(&inflater, 0, sizeof inflater);
  if (inflateInit2(&inflater, 15 + 16) != Z_OK) return ENOMEM;
  unsigned char *input = buffer + BLOCK / 2;
  uint64_t read_bytes = 0, inflated = 0;
  int result = 0, member_ended = 1;
  while (result == 0 && (read_bytes < file_bytes || inflater.avail_in > 0)) {
    if (inflater.avail_in == 0) {
      size_t want = file_bytes - read_bytes < BLOCK / 2 ? (size_t)(file_bytes - read_bytes) : BLOCK / 2;
      ssize_t count = pread(SPILL_FD, input, want, (off_t)read_bytes);
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) {
        result = count < 0 ? errno : PREFIX_MISMATCH;
        break;
      }
      read_bytes += (uint64_t)count;
      inflater.next_in = input;
      inflater.avail_in = (uInt)count;
    }
    if (member_ended) {
      inflateReset(&inflater);
      member_ended = 0;
    }
    inflater.next_out = buffer;
    inflater.avail_out = BLOCK / 2;
    int status = inflate(&inflater, Z_NO_FLUSH);
    size_t produced = BLOCK / 2 - inflater.avail_out;
    sha256_update(&spill.hash, buffer, produced);
    inflated += produced;
    if (status == Z_STREAM_END) member_ended = 1;
    else if (status != Z_OK && status != Z_BUF_ERROR) result = PREFIX_MISMATCH;
  }
  inflateEnd(&inflater);
  if (result == 0 && (!member_ended || inflated != stream_bytes)) result = PREFIX_MISMATCH;
  return result;
}
#endif

/* gzip blocks: read into by the main thread, compressed and written in order by the workers. */
typedef struct block {
  unsigned char *data;
  size_t length; /* stream bytes to store */
  uint64_t sequence;
  struct block *next;
} block;

static struct {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  block *free_blocks;
  block *queue_head, *queue_tail;
  uint64_t next_to_write;
  int finishing;
} work = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, NULL, 0, 0};

#ifdef WHARF_WITH_ZLIB
/* Compresses queued blocks into gzip members and appends them to the spill in block order. */
static void *compress_blocks(void *unused) {
  (void)unused;
  z_stream deflater;
  memset(&deflater, 0, sizeof deflater);
  int ready = deflateInit2(&deflater, spill.level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  size_t members = (BLOCK + MEMBER - 1) / MEMBER;
  size_t capacity = ready ? members * deflateBound(&deflater, MEMBER) : 0;
  unsigned char *output = ready ? malloc(capacity) : NULL;
  for (;;) {
    pthread_mutex_lock(&work.lock);
    while (work.queue_head == NULL && !work.finishing) pthread_cond_wait(&work.changed, &work.lock);
    block *taken = work.queue_head;
    if (taken == NULL) {
      pthread_mutex_unlock(&work.lock);
      break;
    }
    work.queue_head = taken->next;
    if (work.queue_head == NULL) work.queue_tail = NULL;
    pthread_mutex_unlock(&work.lock);

    int failure = output == NULL ? ENOMEM : 0;
    size_t compressed = 0;
    for (size_t start = 0; failure == 0 && start < taken->length; start += MEMBER) {
      deflateReset(&deflater);
      deflater.next_in = taken->data + start;
      deflater.avail_in = (uInt)(taken->length - start < MEMBER ? taken->length - start : MEMBER);
      deflater.next_out = output + compressed;
      deflater.avail_out = (uInt)(capacity - compressed);
      if (deflate(&deflater, Z_FINISH) != Z_STREAM_END) failure = EIO;
      compressed = capacity - deflater.avail_out;
    }

    pthread_mutex_lock(&work.lock);
    while (work.next_to_write != taken->sequence) pthread_cond_wait(&work.changed, &work.lock);
    pthread_mutex_unlock(&work.lock);
    /* Only the block whose turn it is hashes and writes: no lock needed for the spill's fields here. */
    sha256_update(&spill.hash, taken->data, taken->length);
    if (spill.write_error == 0 && failure == 0) failure = write_all(SPILL_FD, output, compressed, &spill.offset);
    if (spill.write_error == 0 && failure != 0) spill.write_error = failure;
    if (spill.write_error == 0) spill.stored += taken->length;
    pthread_mutex_lock(&work.lock);
    work.next_to_write++;
    taken->next = work.free_blocks;
    work.free_blocks = taken;
    pthread_cond_broadcast(&work.changed);
    pthread_mutex_unlock(&work.lock);
  }
  free(output);
  if (ready) deflateEnd(&deflater);
  return NULL;
}
#endif

static block *take_free_block(void) {
  pthread_mutex_lock(&work.lock);
  while (work.free_blocks == NULL) pthread_cond_wait(&work.changed, &work.lock);
  block *taken = work.free_blocks;
  work.free_blocks = taken->next;
  pthread_mutex_unlock(&work.lock);
  return taken;
}

static void submit_block(block *filled) {
  pthread_mutex_lock(&work.lock);
  filled->next = NULL;
  if (work.queue_tail) work.queue_tail->next = filled;
  else work.queue_head = filled;
  work.queue_tail = filled;
  pthread_cond_broadcast(&work.changed);
  pthread_mutex_unlock(&work.lock);
}

static int probe(void) {
#ifdef WHARF_WITH_ZLIB
  printf("gzip sha256:%s\n", sha256_implementation());
#else
  printf("sha256:%s\n", sha256_implementation());
#endif
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) return probe();
  enum spill_mode mode = argc >= 3 ? (strcmp(argv[2], "gzip") == 0 ? SPILL_GZIP : SPILL_PLAIN) : SPILL_NONE;
  int valid = argc == 2 || (argc == 4 && strcmp(argv[2], "plain") == 0) ||
              (argc == 5 && strcmp(argv[2], "gzip") == 0);
#ifndef WHARF_WITH_ZLIB
  if (mode == SPILL_GZIP) valid = 0;
#endif
  if (!valid) {
    fprintf(stderr, "usage: wharf-stream-reader TAIL [plain ROOM | gzip ROOM LEVEL]\n");
    return 2;
  }
  const char *portable = getenv("WHARF_SHA256_PORTABLE");
  if (portable != NULL && strcmp(portable, "1") == 0) sha256_use_portable();
  size_t tail_capacity = strtoull(argv[1], NULL, 10);
  spill.mode = mode;
  spill.room = mode == SPILL_NONE ? 0 : strtoull(argv[3], NULL, 10);
  spill.level = mode == SPILL_GZIP ? atoi(argv[4]) : 0;

  /* SIGTERM is taken by the main thread only: its blocked read must be the one interrupted. */
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, NULL);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_term; /* no SA_RESTART: a blocked read returns EINTR */
  sigaction(SIGTERM, &action, NULL);
  signal(SIGPIPE, SIG_IGN);

  unsigned char *scratch = malloc(BLOCK);
  unsigned char *ring = malloc(tail_capacity > 0 ? tail_capacity : 1);
  if (scratch == NULL || ring == NULL) return 3;

  int workers = 0;
  pthread_t threads[MAX_WORKERS];
#ifdef WHARF_WITH_ZLIB
  if (mode == SPILL_GZIP) {
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    int wanted = processors < 1 ? 1 : processors > MAX_WORKERS ? MAX_WORKERS : (int)processors;
    /* A block being read, one waiting and one per worker. */
    for (int index = 0; index < wanted + 2; index++) {
      block *fresh = malloc(sizeof *fresh);
      if (fresh == NULL || (fresh->data = malloc(BLOCK)) == NULL) return 3;
      fresh->next = work.free_blocks;
      work.free_blocks = fresh;
    }
    for (; workers < wanted; workers++)
      if (pthread_create(&threads[workers], NULL, compress_blocks, NULL) != 0) break;
    if (workers == 0) return 3;
  }
#endif
  pthread_sigmask(SIG_UNBLOCK, &term, NULL);
  write_all(1, "R\n", 2, NULL);

  /* The part of the spill Node wrote: hashed first, then this process appends after it. */
  if (mode != SPILL_NONE) {
    sha256_init(&spill.hash);
    uint64_t stream_bytes = 0, file_bytes = 0;
    if (!read_go(&stream_bytes, &file_bytes)) {
      spill.error = PREFIX_MISMATCH;
    } else {
      spill.offset = (off_t)file_bytes;
#ifdef WHARF_WITH_ZLIB
      if (mode == SPILL_GZIP) spill.error = hash_gzip_prefix(scratch, stream_bytes, file_bytes);
      else
#endif
        spill.error = hash_plain_prefix(scratch, stream_bytes, file_bytes);
    }
  }
  close(GO_FD);

  size_t ring_start = 0, ring_length = 0;
  uint64_t total = 0, newlines = 0, next_progress = PROGRESS_EVERY, sequence = 0;
  int last = -1;
  block *current = mode == SPILL_GZIP ? take_free_block() : NULL;
  size_t filled = 0; /* bytes read into `current` */
  if (current) current->length = 0;

  while (!stopping) {
    unsigned char *into = current ? current->data + filled : scratch;
    size_t want = current ? BLOCK - filled : BLOCK;
    ssize_t count = read(0, into, want);
    if (count < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (count == 0) break;
    size_t length = (size_t)count;
    total += length;
    last = into[length - 1];
    for (const unsigned char *at = into, *end = into + length;
         (at = memchr(at, '\n', (size_t)(end - at))) != NULL; at++)
      newlines++;
    if (tail_capacity > 0) {
      const unsigned char *source = into;
      size_t take = length;
      if (take >= tail_capacity) {
        source = into + take - tail_capacity;
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
    if (mode != SPILL_NONE && spill.error == 0 && spill.room > 0) {
      size_t keep = length < spill.room ? length : (size_t)spill.room;
      spill.room -= keep;
      if (current) {
        /* Only a block's last read may be cut short by the room, and nothing is kept after it. */
        current->length += keep;
      } else {
        sha256_update(&spill.hash, into, keep);
        spill.error = write_all(SPILL_FD, into, keep, &spill.offset);
        if (spill.error == 0) spill.stored += keep;
      }
    }
    if (current) {
      filled += length;
      if (filled == BLOCK || spill.room == 0) {
        if (current->length > 0) {
          current->sequence = sequence++;
          submit_block(current);
          current = spill.room > 0 ? take_free_block() : NULL;
        }
        if (current) current->length = 0;
        filled = 0;
      }
    }
    if (total >= next_progress) {
      char line[32];
      int size = snprintf(line, sizeof line, "P %llu\n", (unsigned long long)total);
      write_all(1, line, (size_t)size, NULL);
      next_progress = total + PROGRESS_EVERY;
    }
  }

  if (current && current->length > 0) {
    current->sequence = sequence++;
    submit_block(current);
  }
  pthread_mutex_lock(&work.lock);
  work.finishing = 1;
  pthread_cond_broadcast(&work.changed);
  pthread_mutex_unlock(&work.lock);
  for (int index = 0; index < workers; index++) pthread_join(threads[index], NULL);

  if (spill.error == 0) spill.error = spill.write_error;
  char digest[65] = "-";
  if (mode != SPILL_NONE) sha256_final(&spill.hash, digest);
  uint64_t dropped = mode == SPILL_NONE ? 0 : total - spill.stored;
  char record[256];
  int size = snprintf(record, sizeof record, "E %llu %llu %d %llu %llu %d %s %zu\n", (unsigned long long)total,
                      (unsigned long long)newlines, last, (unsigned long long)spill.stored,
                      (unsigned long long)dropped, spill.error, digest, ring_length);
  if (write_all(1, record, (size_t)size, NULL) != 0) return 4;
  size_t first = tail_capacity - ring_start < ring_length ? tail_capacity - ring_start : ring_length;
  if (write_all(1, ring + ring_start, first, NULL) != 0 || write_all(1, ring, ring_length - first, NULL) != 0)
    return 4;
  return 0;
}
