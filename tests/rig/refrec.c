/* Reference recorder: the truth a prediction is held against. Standalone C (libc +
 * pthreads), no code shared with streamdisk; refrec.sh compiles and runs it.
 *
 * A producer makes data at a fixed rate into a ring of BUFFER bytes, the way a sound
 * card or ADC driver fills a DMA ring: every PERIOD it adds rate x elapsed bytes. If
 * the ring has no room the data are lost: an overrun (counted once per episode; lost
 * bytes counted too). A writer thread takes whole blocks of BLOCK bytes from the ring
 * and write()s them (buffered: no O_DIRECT, no fsync) to FILE; a block's room in the
 * ring is free again only when its write() returned; when the recording time is up the
 * writer stops (what is left in the ring is not written). The data are slices of a
 * pre-generated random pool, so the producer costs nothing and nothing downstream can
 * compress or skip them.
 *
 * Prints one JSON object: rate, duration, buffer, block, overruns, lost bytes, first
 * overrun time, the start times of the first 64 overrun episodes, write latency (max, p99, p50), max ring fill, bytes written,
 * and what was not the storage: the producer's latest wake-up (max_producer_late_s: it sleeps 1 ms
 * at a time; woken that late, it adds that much data at once) and the longest time a whole block
 * waited in the ring while the writer was not inside write() (max_ready_wait_s: the writer thread
 * not scheduled). An overrun with both far below the ring's length in time came from this machine,
 * not from the storage.
 *
 * Example: refrec /tmp/r1/mnt/rec.raw --rate 8MB/s --buffer 4MiB --duration 60s
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define POOL_BYTES (64u << 20)

static void usage_error(const char *what) {
  fprintf(stderr, "refrec: %s\n", what);
  exit(2);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "4MiB", "256KiB", "8MB", "1000000" -> bytes; returns -1 if malformed. */
static double parse_size(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v < 0) return -1;
  static const struct { const char *u; double m; } units[] = {
      {"", 1}, {"b", 1}, {"k", 1e3}, {"kb", 1e3}, {"kib", 1024}, {"m", 1e6}, {"mb", 1e6},
      {"mib", 1048576}, {"g", 1e9}, {"gb", 1e9}, {"gib", 1073741824}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (!strcasecmp(end, units[i].u)) return v * units[i].m;
  return -1;
}

/* "8", "8MB/s", "8000000B/s" -> bytes per second (a bare number means MB/s). */
static double parse_rate(const char *s) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  size_t n = strlen(buf);
  if (n > 2 && !strcasecmp(buf + n - 2, "/s")) buf[n - 2] = 0;
  char *end;
  double v = strtod(buf, &end);
  if (end != buf && *end == 0) return v * 1e6;
  return parse_size(buf);
}

/* "60s", "1ms", "2min", "0.5h", "60" -> seconds; -1 if malformed. */
static double parse_duration(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v < 0) return -1;
  if (!*end || !strcmp(end, "s")) return v;
  if (!strcmp(end, "ms")) return v * 1e-3;
  if (!strcmp(end, "min") || !strcmp(end, "m")) return v * 60;
  if (!strcmp(end, "h")) return v * 3600;
  return -1;
}

struct ring {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  size_t capacity, block;
  size_t fill;      /* produced and not yet written, including the block in flight */
  size_t max_fill;
  long overruns;    /* episodes: the producer found the ring full */
  double lost;      /* bytes the producer could not store */
  double first_overrun;
  double overrun_at[64]; /* start times of the first 64 episodes */
  int in_overrun, done, write_errno;
  double last_end;        /* the writer's last write() returned (writer side, under mu) */
  double ready_at;        /* when the ring last came to hold a whole block (producer side) */
  double max_late, max_late_at; /* producer: latest wake-up past its schedule */
  double max_ready_wait, max_ready_wait_at; /* writer: a ready block not being written */
  /* writer side */
  int fd;
  const unsigned char *pool;
  double t0;
  double *lat_start, *lat_dur;
  size_t nlat, cap_lat;
};

static void *writer(void *arg) {
  struct ring *r = arg;
  size_t off = 0;
  for (;;) {
    pthread_mutex_lock(&r->mu);
    int waited = 0;
    while (r->fill < r->block && !r->done) pthread_cond_wait(&r->cv, &r->mu), waited = 1;
    int stop = r->done; /* the recording is over: what is left in the ring is not timed */
    double ready = waited ? r->ready_at : r->last_end;
    pthread_mutex_unlock(&r->mu);
    if (stop) return NULL;
    double t = now_s();
    if (ready > 0 && t - ready > r->max_ready_wait) r->max_ready_wait = t - ready, r->max_ready_wait_at = t - r->t0;
    size_t left = r->block;
    const unsigned char *p = r->pool + off;
    while (left) {
      ssize_t w = write(r->fd, p, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        pthread_mutex_lock(&r->mu);
        r->write_errno = errno;
        pthread_mutex_unlock(&r->mu);
        return NULL;
      }
      p += w;
      left -= (size_t)w;
    }
    double d = now_s() - t;
    if (r->nlat < r->cap_lat) {
      r->lat_start[r->nlat] = t - r->t0;
      r->lat_dur[r->nlat] = d;
      r->nlat++;
    }
    off = (off + r->block + 4096) % (POOL_BYTES - r->block);
    pthread_mutex_lock(&r->mu);
    r->fill -= r->block;
    r->last_end = now_s();
    pthread_mutex_unlock(&r->mu);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const char *file = NULL, *log_path = NULL;
  double rate = -1, buffer = 4 * 1048576.0, block = -1, duration = 60, period = 1e-3;
  int keep = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      puts("usage: refrec FILE --rate MB/s [--buffer 4MiB] [--block BUFFER/2] [--duration 60s]\n"
           "              [--period 1ms] [--log lat.csv] [--keep]\n"
           "Records at a fixed rate into a ring, a writer thread drains it in blocks into FILE, a new\n"
           "file it creates (an existing path is refused), deleted at the end unless --keep;\n"
           "prints a JSON summary (overruns, latencies).\n"
           "Example: refrec /tmp/r1/mnt/rec.raw --rate 8MB/s --buffer 4MiB --duration 60s");
      return 0;
    }
    if (a[0] != '-') { if (file) usage_error("more than one FILE given: give one file to record into"); file = a; continue; }
    if (!strcmp(a, "--keep")) { keep = 1; continue; }
    if (!v) { fprintf(stderr, "refrec: %s needs a value, e.g. %s 4MiB\n", a, a); return 2; }
    i++;
    if (!strcmp(a, "--rate")) rate = parse_rate(v);
    else if (!strcmp(a, "--buffer")) buffer = parse_size(v);
    else if (!strcmp(a, "--block")) block = parse_size(v);
    else if (!strcmp(a, "--duration")) duration = parse_duration(v);
    else if (!strcmp(a, "--period")) period = parse_duration(v);
    else if (!strcmp(a, "--log")) log_path = v;
    else { fprintf(stderr, "refrec: unknown option %s: see refrec --help\n", a); return 2; }
  }
  if (!file) usage_error("no FILE given: refrec FILE --rate 8MB/s");
  if (!(rate > 0)) usage_error("--rate missing or not a rate: use e.g. --rate 8MB/s");
  if (!(buffer >= 1)) usage_error("--buffer is not a size: use e.g. --buffer 4MiB");
  if (block < 0) block = floor(buffer / 2);
  if (!(block >= 1) || block > buffer) usage_error("--block must be a size between 1 byte and the buffer size");
  if (block > POOL_BYTES / 2) usage_error("--block must be at most 32MiB");
  if (!(duration > 0)) usage_error("--duration is not a duration: use e.g. --duration 60s");
  if (!(period > 0) || period > 1) usage_error("--period must be between 0 and 1s, e.g. --period 1ms");

  struct ring r;
  memset(&r, 0, sizeof r);
  pthread_mutex_init(&r.mu, NULL);
  pthread_cond_init(&r.cv, NULL);
  r.capacity = (size_t)buffer;
  r.block = (size_t)block;
  r.first_overrun = -1;
  r.cap_lat = (size_t)(rate * duration / block) + 64;
  r.lat_start = calloc(r.cap_lat, sizeof(double));
  r.lat_dur = calloc(r.cap_lat, sizeof(double));
  unsigned char *pool = malloc(POOL_BYTES);
  if (!pool || !r.lat_start || !r.lat_dur) { fprintf(stderr, "refrec: out of memory\n"); return 1; }
  for (size_t got = 0; got < POOL_BYTES;) {
    ssize_t n = getrandom(pool + got, POOL_BYTES - got, 0);
    if (n > 0) got += (size_t)n;
  }
  r.pool = pool;
  mlockall(MCL_CURRENT | MCL_FUTURE); /* best effort: no page faults in the timed loop */
  /* O_EXCL: refrec deletes its recording at the end, so it only ever writes
     (and deletes) a file it created itself, never a user's file or /dev/null. */
  r.fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (r.fd < 0) {
    fprintf(stderr, "refrec: cannot create %s: %s: give a new file's path (refrec never writes over a file)\n", file,
            strerror(errno));
    return 2;
  }

  r.t0 = now_s();
  pthread_t th;
  pthread_create(&th, NULL, writer, &r);
  double produced_until = r.t0, end = r.t0 + duration, carry = 0;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    long ns = next.tv_nsec + (long)(period * 1e9);
    next.tv_sec += ns / 1000000000L;
    next.tv_nsec = ns % 1000000000L;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    double now = now_s();
    double sched = next.tv_sec + next.tv_nsec * 1e-9;
    if (now - sched > r.max_late) r.max_late = now - sched, r.max_late_at = now - r.t0;
    if (now > end) now = end;
    carry += rate * (now - produced_until);
    produced_until = now;
    size_t n = (size_t)carry;
    carry -= (double)n;
    pthread_mutex_lock(&r.mu);
    size_t room = r.capacity - r.fill;
    if (n > room) {
      if (!r.in_overrun) {
        if (r.overruns < 64) r.overrun_at[r.overruns] = now - r.t0;
        r.overruns++;
        r.in_overrun = 1;
        if (r.first_overrun < 0) r.first_overrun = now - r.t0;
      }
      r.lost += (double)(n - room);
      n = room;
    } else {
      r.in_overrun = 0;
    }
    if (r.fill < r.block && r.fill + n >= r.block) r.ready_at = now;
    r.fill += n;
    if (r.fill > r.max_fill) r.max_fill = r.fill;
    int finished = now >= end || r.write_errno;
    if (finished) r.done = 1;
    pthread_cond_signal(&r.cv);
    pthread_mutex_unlock(&r.mu);
    if (finished) break;
  }
  pthread_join(th, NULL);
  double elapsed = now_s() - r.t0;
  if (close(r.fd) && !r.write_errno) r.write_errno = errno;
  if (!keep) unlink(file);

  double *sorted = malloc((r.nlat + 1) * sizeof(double));
  memcpy(sorted, r.lat_dur, r.nlat * sizeof(double));
  qsort(sorted, r.nlat, sizeof(double), cmp_double);
  size_t worst = 0;
  for (size_t i = 0; i < r.nlat; i++) if (r.lat_dur[i] > r.lat_dur[worst]) worst = i;
#define Q(p) (r.nlat ? sorted[(size_t)((p) * r.nlat) < r.nlat ? (size_t)((p) * r.nlat) : r.nlat - 1] : 0.0)
  printf("{\"rate_Bps\": %.0f, \"rate_MBps\": %.6g, \"duration_s\": %.6g, \"buffer_bytes\": %zu, "
         "\"block_bytes\": %zu, \"overruns\": %ld, \"lost_bytes\": %.0f, \"first_overrun_s\": ",
         rate, rate / 1e6, duration, r.capacity, r.block, r.overruns, r.lost);
  if (r.first_overrun < 0) printf("null"); else printf("%.6f", r.first_overrun);
  printf(", \"max_write_latency_s\": %.6f, \"max_write_latency_at_s\": %.6f, "
         "\"p99_write_latency_s\": %.6f, \"p50_write_latency_s\": %.6f, \"writes\": %zu, "
         "\"bytes_written\": %.0f, \"max_fill_bytes\": %zu, \"elapsed_s\": %.6f, "
         "\"start_monotonic_s\": %.6f",
         r.nlat ? sorted[r.nlat - 1] : 0.0, r.nlat ? r.lat_start[worst] : 0.0, Q(0.99), Q(0.5),
         r.nlat, (double)r.nlat * r.block, r.max_fill, elapsed, r.t0);
  printf(", \"max_producer_late_s\": %.6f, \"max_producer_late_at_s\": %.6f, \"max_ready_wait_s\": %.6f, "
         "\"max_ready_wait_at_s\": %.6f",
         r.max_late, r.max_late_at, r.max_ready_wait, r.max_ready_wait_at);
  printf(", \"overrun_at_s\": [");
  for (long i = 0; i < r.overruns && i < 64; i++) printf("%s%.6f", i ? ", " : "", r.overrun_at[i]);
  printf("]");
  if (r.write_errno) printf(", \"write_error\": \"%s\"", strerror(r.write_errno));
  printf("}\n");
  if (log_path) {
    FILE *f = fopen(log_path, "w");
    if (!f) { fprintf(stderr, "refrec: cannot write %s: %s\n", log_path, strerror(errno)); return 1; }
    fprintf(f, "start_s,latency_s\n");
    for (size_t i = 0; i < r.nlat; i++) fprintf(f, "%.6f,%.6f\n", r.lat_start[i], r.lat_dur[i]);
    fclose(f);
  }
  if (r.write_errno) {
    fprintf(stderr, "refrec: writing %s failed: %s\n", file, strerror(r.write_errno));
    return 1;
  }
  return 0;
}
