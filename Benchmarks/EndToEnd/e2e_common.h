/*
 * e2e_common.h: small helpers shared by the end-to-end benchmark's C programs (e2e_driver.c,
 * e2e_ceiling.c): clocks, fatal errors, librdkafka configuration, partition lists, /proc readers
 * and the JSON field scan the driver uses on status records. Header-only (static functions), so
 * each program is still built from one .c file.
 */
#ifndef E2E_COMMON_H
#define E2E_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The program's name in messages ("e2e_driver", "e2e_ceiling"). */
static const char *e2e_program = "e2e";

__attribute__((format(printf, 1, 2), noreturn)) static inline void die(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: error: ", e2e_program);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

__attribute__((format(printf, 1, 2))) static inline void note(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", e2e_program);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

/* Wall clock in milliseconds (with microsecond fraction): the clock Kafka timestamps use. */
static inline double wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* Monotonic clock in seconds, for durations and timeouts. */
static inline double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void sleep_ms(double ms) {
    if (ms <= 0) return;
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000.0), .tv_nsec = (long)(((long long)(ms * 1e6)) % 1000000000LL)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Sets one librdkafka property or dies naming it. */
static inline void conf_set(rd_kafka_conf_t *conf, const char *name, const char *value) {
    char errstr[512];
    if (rd_kafka_conf_set(conf, name, value, errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
        die("librdkafka property %s=%s: %s", name, value, errstr);
}

/* Creates a client of the given type from conf (which it takes over) or dies. */
static inline rd_kafka_t *new_client(rd_kafka_type_t type, rd_kafka_conf_t *conf) {
    char errstr[512];
    rd_kafka_t *rk = rd_kafka_new(type, conf, errstr, sizeof errstr);
    if (!rk) die("rd_kafka_new: %s", errstr);
    return rk;
}

/* Dies with a transactional error's text (and destroys it). */
static inline void die_error(const char *what, rd_kafka_error_t *error) {
    fprintf(stderr, "%s: error: %s: %s (%s%s%s)\n", e2e_program, what, rd_kafka_error_string(error),
            rd_kafka_error_name(error), rd_kafka_error_is_retriable(error) ? ", retriable" : "",
            rd_kafka_error_txn_requires_abort(error) ? ", requires abort" : "");
    rd_kafka_error_destroy(error);
    exit(1);
}

/* The number of partitions of topic, from the cluster's metadata; dies after timeout_ms. */
static inline int topic_partition_count(rd_kafka_t *rk, const char *topic, int timeout_ms) {
    double deadline = mono_s() + timeout_ms / 1000.0;
    for (;;) {
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
        if (!rkt) die("rd_kafka_topic_new(%s): %s", topic, rd_kafka_err2str(rd_kafka_last_error()));
        const struct rd_kafka_metadata *md = NULL;
        rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
        rd_kafka_topic_destroy(rkt);
        int count = -1;
        const char *problem = rd_kafka_err2str(err);
        if (!err) {
            if (md->topic_cnt == 1 && !md->topics[0].err) count = md->topics[0].partition_cnt;
            else if (md->topic_cnt == 1) problem = rd_kafka_err2str(md->topics[0].err);
            rd_kafka_metadata_destroy(md);
        }
        if (count > 0) return count;
        if (mono_s() > deadline) die("no metadata for topic %s after %d ms: %s", topic, timeout_ms, problem);
        sleep_ms(200);
    }
}

/* Splits a comma-separated list in place into at most max items; returns the count. */
static inline int split_list(char *list, char **items, int max) {
    int n = 0;
    for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (!*item) continue;
        if (n == max) die("more than %d items in a list", max);
        items[n++] = item;
    }
    return n;
}

/* CPU seconds (user + system) a process has used so far, from /proc/PID/stat; -1 if unreadable. */
static inline double process_cpu_seconds(long pid) {
    char path[64], buffer[4096];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    size_t length = fread(buffer, 1, sizeof buffer - 1, file);
    fclose(file);
    buffer[length] = 0;
    /* The command name (field 2) may hold spaces and parentheses: fields 3.. follow the last ')'. */
    char *p = strrchr(buffer, ')');
    if (!p) return -1;
    unsigned long long utime = 0, stime = 0;
    /* After ")": state(3) ppid(4) pgrp(5) session(6) tty_nr(7) tpgid(8) flags(9) minflt(10)
     * cminflt(11) majflt(12) cmajflt(13) utime(14) stime(15). */
    if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* This process's own CPU seconds (user + system, all threads). */
static inline double self_cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
           usage.ru_stime.tv_usec / 1e6;
}

/*
 * Up to size records (or events) from a consumer whose queue is `queue`
 * (rd_kafka_queue_get_consumer after rd_kafka_poll_set_consumer): waits up to timeout_ms for the
 * first one only, then takes what is already there. rd_kafka_consume_batch_queue alone waits the
 * whole timeout for the batch to fill, which at low rates adds up to timeout_ms to every record's
 * latency. Returns the count, or -1 on error (rd_kafka_last_error()).
 */
static inline ssize_t consume_available(rd_kafka_t *rk, rd_kafka_queue_t *queue, rd_kafka_message_t **batch, size_t size,
                                        int timeout_ms) {
    ssize_t count = rd_kafka_consume_batch_queue(queue, 0, batch, size);
    if (count != 0 || size < 2) return count;
    rd_kafka_message_t *first = rd_kafka_consumer_poll(rk, timeout_ms);
    if (!first) return 0;
    batch[0] = first;
    count = rd_kafka_consume_batch_queue(queue, 0, batch + 1, size - 1);
    return count < 0 ? 1 : count + 1; /* an error here shows again at the next call */
}

/*
 * Finds the string value of "name" in a flat JSON object (as the bridge's status records are)
 * and copies it into out. Returns 1 when found. Not a JSON parser: enough for records whose
 * member names do not appear inside string values before the member itself.
 */
static inline int json_string_field(const char *json, size_t length, const char *name, char *out, size_t out_size) {
    size_t name_length = strlen(name);
    const char *end = json + length;
    for (const char *p = json; p + name_length + 2 <= end; p++) {
        if (*p != '"' || memcmp(p + 1, name, name_length) != 0 || p[name_length + 1] != '"') continue;
        const char *q = p + name_length + 2;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
        if (q == end || *q != ':') continue;
        q++;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
        if (q == end || *q != '"') return 0;
        q++;
        size_t n = 0;
        while (q < end && *q != '"' && n + 1 < out_size) out[n++] = *q++;
        out[n] = 0;
        return q < end && *q == '"';
    }
    return 0;
}

#endif
