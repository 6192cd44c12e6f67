/*
 * e2e_driver: the load generator and the stopwatch of the end-to-end benchmark
 * (scripts/benchmark-e2e.sh). One subcommand per step:
 *
 *   create-topics  --topics A,B,... --partitions P
 *       Creates the topics through the admin API (an existing topic is fine, any other error is
 *       fatal), then waits until the metadata shows each with its partitions.
 *   presence       --topic T --devices D --group G
 *       Connects devices 0..D/2-1 ({"token":...,"event":"connect"} keyed by the token), then waits
 *       until group G has committed, on every partition of T, the offset after the last event
 *       produced there (delivery-report offsets; rd_kafka_committed). The bridge then knows them.
 *   throughput     --send-topic S --done-topic O [--done-filter status|all] --requests N --devices D
 *                  [--count-topics A,B,...] [--watch-pid NAME=PID ...]
 *       Produces N send requests (~300 bytes: HTTP v1, legacy notification and legacy data-only in
 *       turn) round-robin over D devices, as fast as one producer can, and counts the records of O
 *       that answer them with a read_committed consumer: for the bridge the status events of type
 *       queued, dispatched, rejected or validated (--done-filter status), for a ceiling every record.
 *       msgs/s = N / (time the Nth was read - time the first produce started). The CPU seconds of
 *       the watched processes are sampled over the same span. --count-topics counts the records on
 *       those topics before and after, to give the records written per input.
 *       With --subscriptions K, each of the N requests is a subscription of K devices to a topic
 *       of its own (`bench-<n>`, or all to --topic-name's, FCM's batchAdd body, no key), and the
 *       N*K `subscribed` status events answer them: msgs/s counts token changes.
 *   fanout         --send-topic S --done-topic O --topic-name NAME --members M [--watch-pid NAME=PID ...]
 *       Produces one send to topic NAME (HTTP v1, no key) and counts the `queued` and `dispatched`
 *       status events of its M members' copies: msgs/s = M / (time the Mth was read - time the
 *       produce started), the devices reached per second.
 *   latency        --send-topic S --latency-topic O --rate R --seconds S --devices D
 *       Produces at R requests/s for S seconds to the online devices (0..D/2-1) and, for every
 *       record of O from this run, takes now - the record's timestamp (the send's CreateTime,
 *       which the bridge copies to the inbox record): p50, p99 and max, once all have arrived.
 *       The producer lingers 1 ms here (5 ms elsewhere); the mean time to its delivery reports is
 *       printed too, to tell the broker's share from the rest.
 *
 * Producers partition keys with murmur2 like the Java client, so a request keyed by its token
 * lands on the partition of the worker that owns the device (no repartitioning in the bridge).
 * Records are told apart from older runs on the same topics by their timestamp: every consumer
 * here ignores records older than the start of its own step. Partition ends are found with
 * partition EOF (never "latest" offsets: tansu's are wrong). Results are "RESULT name=value" lines
 * on standard output; progress and a readable summary go to standard error. Every wait has a
 * timeout (--timeout-seconds, default 300) and fails with a message.
 */
#include "e2e_common.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>

#define TOKEN_LENGTH 163 /* 22-char instance id, ':', "APA91b", 134 chars: like FCM's tokens */
#define MAX_TOPICS 16
#define MAX_WATCHED 8

static struct {
    const char *bootstrap;
    const char *topic;       /* presence */
    const char *send_topic;  /* throughput, latency */
    const char *done_topic;  /* throughput: where answers are counted; latency: where they are timed */
    const char *inbox_topic; /* storm: where the probes are timed */
    int status_filter;       /* count only status events that settle a request */
    char *topics;            /* create-topics */
    char *count_topics;      /* throughput */
    const char *group;       /* presence */
    long long requests;
    long long subscriptions; /* tokens per subscription request; 0: send requests */
    const char *topic_name;  /* subscriptions' topic (else bench-<n>); fanout's target */
    long long members;       /* fanout, storm */
    long long sends;         /* storm: fan-out sends at once */
    long long probes;        /* storm: devices the probes go to, after the members */
    long long devices;
    double rate;
    double seconds;
    int partitions;
    int replication_factor;
    double timeout_seconds;
    int linger_ms;
    unsigned long long seed;
    struct { const char *name; long pid; } watched[MAX_WATCHED];
    int watched_count;
} options = {
    .requests = 200000,
    .devices = 20000,
    .rate = 2000,
    .seconds = 10,
    .partitions = 4,
    .replication_factor = -1,
    .timeout_seconds = 300,
    .linger_ms = -1,
    .seed = 0x5eed,
    .sends = 50,
    .probes = 100,
};

static void usage(void) {
    fprintf(stderr,
            "usage: e2e_driver create-topics --topics A,B,... [--partitions 4] [--replication-factor -1]\n"
            "       e2e_driver presence --topic T --group G [--devices 20000]\n"
            "       e2e_driver throughput --send-topic S --done-topic O [--done-filter status|all] [--requests 200000]\n"
            "                  [--devices 20000] [--count-topics A,B,...] [--watch-pid NAME=PID]...\n"
            "       e2e_driver fanout --send-topic S --done-topic O --topic-name NAME --members M [--watch-pid NAME=PID]...\n"
            "       e2e_driver storm --send-topic S --done-topic STATUS --latency-topic INBOX --topic-name NAME --members M\n"
            "                  [--sends 50] [--probes 100] [--rate 20] [--seconds 3] --watch-pid bridge=PID\n"
            "       e2e_driver latency --send-topic S --latency-topic O [--rate 2000] [--seconds 10] [--devices 20000]\n"
            "                  [--watch-pid NAME=PID]...\n"
            "common: [--bootstrap HOST:PORT (default $KAFKA_BOOTSTRAP_SERVERS)] [--timeout-seconds 300] [--seed N]\n"
            "        [--linger-ms MS (default: latency 1, otherwise 5)]\n");
    exit(2);
}

static void parse_options(int argc, char **argv) {
    static const struct option long_options[] = {
        {"bootstrap", required_argument, 0, 'b'},     {"topic", required_argument, 0, 'T'},
        {"send-topic", required_argument, 0, 's'},    {"done-topic", required_argument, 0, 'o'},
        {"latency-topic", required_argument, 0, 'o'}, {"done-filter", required_argument, 0, 'f'},
        {"topics", required_argument, 0, 'l'},        {"count-topics", required_argument, 0, 'C'},
        {"group", required_argument, 0, 'g'},         {"requests", required_argument, 0, 'n'},
        {"devices", required_argument, 0, 'd'},       {"rate", required_argument, 0, 'r'},
        {"seconds", required_argument, 0, 'S'},       {"partitions", required_argument, 0, 'p'},
        {"replication-factor", required_argument, 0, 'R'}, {"timeout-seconds", required_argument, 0, 't'},
        {"linger-ms", required_argument, 0, 'L'},     {"seed", required_argument, 0, 'e'},
        {"watch-pid", required_argument, 0, 'w'},     {"subscriptions", required_argument, 0, 'k'},
        {"topic-name", required_argument, 0, 'N'},    {"members", required_argument, 0, 'M'},
        {"sends", required_argument, 0, 'x'},         {"probes", required_argument, 0, 'P'},
        {"inbox-topic", required_argument, 0, 'I'},
        {0, 0, 0, 0},
    };
    options.bootstrap = getenv("KAFKA_BOOTSTRAP_SERVERS");
    int c;
    char *equals;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (c) {
        case 'b': options.bootstrap = optarg; break;
        case 'T': options.topic = optarg; break;
        case 's': options.send_topic = optarg; break;
        case 'o': options.done_topic = optarg; break;
        case 'f':
            if (!strcmp(optarg, "status")) options.status_filter = 1;
            else if (!strcmp(optarg, "all")) options.status_filter = 0;
            else usage();
            break;
        case 'l': options.topics = optarg; break;
        case 'C': options.count_topics = optarg; break;
        case 'g': options.group = optarg; break;
        case 'n': options.requests = atoll(optarg); break;
        case 'k': options.subscriptions = atoll(optarg); break;
        case 'N': options.topic_name = optarg; break;
        case 'M': options.members = atoll(optarg); break;
        case 'x': options.sends = atoll(optarg); break;
        case 'P': options.probes = atoll(optarg); break;
        case 'I': options.inbox_topic = optarg; break;
        case 'd': options.devices = atoll(optarg); break;
        case 'r': options.rate = atof(optarg); break;
        case 'S': options.seconds = atof(optarg); break;
        case 'p': options.partitions = atoi(optarg); break;
        case 'R': options.replication_factor = atoi(optarg); break;
        case 't': options.timeout_seconds = atof(optarg); break;
        case 'L': options.linger_ms = atoi(optarg); break;
        case 'e': options.seed = strtoull(optarg, NULL, 0); break;
        case 'w':
            if (options.watched_count == MAX_WATCHED) die("at most %d --watch-pid", MAX_WATCHED);
            if (!(equals = strchr(optarg, '=')) || equals == optarg || atol(equals + 1) <= 0)
                die("--watch-pid wants NAME=PID, got %s", optarg);
            *equals = 0;
            options.watched[options.watched_count].name = optarg;
            options.watched[options.watched_count++].pid = atol(equals + 1);
            break;
        default: usage();
        }
    }
    if (optind != argc) usage();
    if (!options.bootstrap || !*options.bootstrap) die("no broker: give --bootstrap or set KAFKA_BOOTSTRAP_SERVERS");
    if (options.devices < 2 || options.requests < 1 || options.partitions < 1 || options.rate <= 0 || options.seconds <= 0 ||
        options.timeout_seconds <= 0)
        usage();
}

/* ---- devices and requests ---------------------------------------------------------------- */

static char *tokens; /* devices * (TOKEN_LENGTH + 1), NUL-terminated each */

static const char *token(long long device) { return tokens + device * (TOKEN_LENGTH + 1); }

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Deterministic FCM-like tokens, the same in every subcommand for the same --seed. */
static void make_tokens(long long devices) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    tokens = malloc((size_t)devices * (TOKEN_LENGTH + 1));
    if (!tokens) die("out of memory for %lld tokens", devices);
    for (long long d = 0; d < devices; d++) {
        char *t = tokens + d * (TOKEN_LENGTH + 1);
        uint64_t state = options.seed * 1000003ULL + (uint64_t)d, bits = 0;
        int available = 0;
        for (int i = 0; i < TOKEN_LENGTH; i++) {
            if (available < 6) bits = splitmix64(&state), available = 64;
            t[i] = alphabet[bits & 63];
            bits >>= 6, available -= 6;
        }
        t[22] = ':';
        memcpy(t + 23, "APA91b", 6);
        t[TOKEN_LENGTH] = 0;
    }
}

/*
 * The i-th send request to device: HTTP v1 with a notification, legacy with a notification, and
 * legacy data-only in turn. About 300 bytes with a 163-byte token; no collapse key and no TTL, so
 * the bridge answers each with exactly one `queued` or `dispatched`.
 */
static int make_request(char *buffer, size_t size, long long i, long long device) {
    int length;
    switch (i % 3) {
    case 0:
        length = snprintf(buffer, size,
                          "{\"message\":{\"token\":\"%s\",\"notification\":{\"title\":\"Order %lld\",\"body\":\"Your parcel "
                          "ships today\"},\"data\":{\"order\":\"%lld\"},\"apns\":{\"headers\":{\"apns-priority\":\"10\"}}}}",
                          token(device), i, i);
        break;
    case 1:
        length = snprintf(buffer, size,
                          "{\"to\":\"%s\",\"notification\":{\"title\":\"New message\",\"body\":\"Lunch at %lld?\","
                          "\"badge\":\"3\",\"sound\":\"default\"},\"data\":{\"chat\":\"%lld\"},\"priority\":\"high\"}",
                          token(device), i % 10000, i);
        break;
    default:
        length = snprintf(buffer, size,
                          "{\"to\":\"%s\",\"data\":{\"sync\":\"inbox\",\"cursor\":\"%lld\",\"reason\":\"new-mail\"},"
                          "\"content_available\":true}",
                          token(device), i);
        break;
    }
    if (length < 0 || (size_t)length >= size) die("request %lld does not fit %zu bytes", i, size);
    return length;
}

/* The i-th subscription request: devices i*K .. i*K+K-1 (round-robin) join topic bench-<i>. */
static int make_subscription(char *buffer, size_t size, long long i, long long k) {
    int length = options.topic_name
                     ? snprintf(buffer, size, "{\"action\":\"subscribe\",\"topic\":\"%s\",\"tokens\":[", options.topic_name)
                     : snprintf(buffer, size, "{\"action\":\"subscribe\",\"topic\":\"bench-%lld\",\"tokens\":[", i);
    for (long long j = 0; j < k && length > 0 && (size_t)length < size; j++)
        length += snprintf(buffer + length, size - (size_t)length, "%s\"%s\"", j ? "," : "",
                           token((i * k + j) % options.devices));
    if (length > 0 && (size_t)length < size) length += snprintf(buffer + length, size - (size_t)length, "]}");
    if (length < 0 || (size_t)length >= size) die("subscription %lld does not fit %zu bytes", i, size);
    return length;
}

/* ---- producing ---------------------------------------------------------------------------- */

#define MAX_PARTITIONS 1024
static atomic_llong delivered, delivery_failures;
static int64_t last_offset[MAX_PARTITIONS]; /* presence: the highest delivered offset per partition */
static double last_delivery_mono;
static double ack_sum_ms, ack_max_ms; /* from a record's timestamp to its delivery report */

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *message, void *opaque) {
    (void)rk, (void)opaque;
    if (message->err) {
        if (atomic_fetch_add(&delivery_failures, 1) < 5) note("delivery failed: %s", rd_kafka_err2str(message->err));
        return;
    }
    atomic_fetch_add(&delivered, 1);
    if (message->partition >= 0 && message->partition < MAX_PARTITIONS && message->offset > last_offset[message->partition])
        last_offset[message->partition] = message->offset;
    last_delivery_mono = mono_s();
    rd_kafka_timestamp_type_t type;
    double ack_ms = wall_ms() - (double)rd_kafka_message_timestamp(message, &type);
    ack_sum_ms += ack_ms;
    if (ack_ms > ack_max_ms) ack_max_ms = ack_ms;
}

static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque) {
    (void)opaque;
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
        char fatal[512];
        rd_kafka_resp_err_t original = rd_kafka_fatal_error(rk, fatal, sizeof fatal);
        die("fatal error in %s: %s: %s", rd_kafka_name(rk), rd_kafka_err2name(original), fatal);
    }
    note("%s: %s: %s", rd_kafka_name(rk), rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}

/* A producer partitioning keys with murmur2 (the Java client's default, as the contract says), so
 * a request keyed by its token lands on the partition of the worker that owns the device. */
static rd_kafka_t *make_producer(int linger_ms) {
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char linger[32];
    snprintf(linger, sizeof linger, "%d", options.linger_ms >= 0 ? options.linger_ms : linger_ms);
    conf_set(conf, "bootstrap.servers", options.bootstrap);
    conf_set(conf, "client.id", "e2e-driver");
    conf_set(conf, "linger.ms", linger);
    conf_set(conf, "batch.num.messages", "10000");
    conf_set(conf, "queue.buffering.max.messages", "1000000");
    conf_set(conf, "enable.idempotence", "true");
    conf_set(conf, "partitioner", "murmur2_random");
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_error_cb(conf, on_error);
    for (int p = 0; p < MAX_PARTITIONS; p++) last_offset[p] = -1;
    return new_client(RD_KAFKA_PRODUCER, conf);
}

/* Produces one record (copied), waiting for room when the producer's queue is full. */
static void produce(rd_kafka_t *producer, rd_kafka_topic_t *topic, const char *key, size_t key_length, const char *value,
                    size_t value_length, int64_t timestamp) {
    for (;;) {
        rd_kafka_resp_err_t err = rd_kafka_producev(producer, RD_KAFKA_V_RKT(topic), RD_KAFKA_V_KEY(key, key_length),
                                                    RD_KAFKA_V_VALUE((void *)value, value_length), RD_KAFKA_V_TIMESTAMP(timestamp),
                                                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (!err) return;
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) die("produce to %s: %s", rd_kafka_topic_name(topic), rd_kafka_err2str(err));
        rd_kafka_poll(producer, 10);
    }
}

static void flush_or_die(rd_kafka_t *producer, double seconds) {
    rd_kafka_resp_err_t err = rd_kafka_flush(producer, (int)(seconds * 1000));
    if (err) die("flush: %s (%d records still waiting)", rd_kafka_err2str(err), rd_kafka_outq_len(producer));
    if (atomic_load(&delivery_failures)) die("%lld records were not delivered", (long long)atomic_load(&delivery_failures));
}

/* ---- consuming ---------------------------------------------------------------------------- */

/* A consumer that reads whole topics by assignment (no group membership, no commits), from the
 * beginning, read_committed, reporting partition EOF. The group id only satisfies librdkafka. */
static rd_kafka_t *make_reader(char **topics, int topic_count, int *partition_counts) {
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char group[128];
    snprintf(group, sizeof group, "e2e-driver-reader-%ld-%ld", (long)getpid(), (long)time(NULL));
    conf_set(conf, "bootstrap.servers", options.bootstrap);
    conf_set(conf, "client.id", "e2e-driver-reader");
    conf_set(conf, "group.id", group);
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "isolation.level", "read_committed");
    conf_set(conf, "fetch.wait.max.ms", "10");
    conf_set(conf, "enable.partition.eof", "true");
    rd_kafka_conf_set_error_cb(conf, on_error);
    rd_kafka_t *rk = new_client(RD_KAFKA_CONSUMER, conf);
    rd_kafka_resp_err_t err = rd_kafka_poll_set_consumer(rk);
    if (err) die("poll_set_consumer: %s", rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_t *assignment = rd_kafka_topic_partition_list_new(16);
    for (int t = 0; t < topic_count; t++) {
        partition_counts[t] = topic_partition_count(rk, topics[t], 30000);
        if (partition_counts[t] > MAX_PARTITIONS) die("%s has more than %d partitions", topics[t], MAX_PARTITIONS);
        for (int p = 0; p < partition_counts[t]; p++)
            rd_kafka_topic_partition_list_add(assignment, topics[t], p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    }
    if ((err = rd_kafka_assign(rk, assignment))) die("assign: %s", rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_destroy(assignment);
    return rk;
}

static void close_reader(rd_kafka_t *rk) {
    rd_kafka_resp_err_t err = rd_kafka_consumer_close(rk);
    if (err) note("consumer close: %s", rd_kafka_err2str(err));
    rd_kafka_destroy(rk);
}

/* Counts the records on each topic, reading each partition from the beginning to its end. */
static void count_records(char **topics, int topic_count, long long *counts) {
    int partition_counts[MAX_TOPICS];
    rd_kafka_t *rk = make_reader(topics, topic_count, partition_counts);
    int total_partitions = 0, at_end = 0;
    char *ended[MAX_TOPICS];
    for (int t = 0; t < topic_count; t++) {
        counts[t] = 0;
        total_partitions += partition_counts[t];
        ended[t] = calloc((size_t)partition_counts[t], 1);
        if (!ended[t]) die("out of memory");
    }
    rd_kafka_queue_t *queue = rd_kafka_queue_get_consumer(rk);
    rd_kafka_message_t *batch[10000];
    double deadline = mono_s() + options.timeout_seconds;
    while (at_end < total_partitions) {
        if (mono_s() > deadline) die("counting records: %d of %d partitions read to the end after %.0f s", at_end, total_partitions, options.timeout_seconds);
        ssize_t n = consume_available(rk, queue, batch, 10000, 100);
        if (n < 0) die("consume: %s", rd_kafka_err2str(rd_kafka_last_error()));
        for (ssize_t i = 0; i < n; i++) {
            rd_kafka_message_t *m = batch[i];
            int t = -1;
            if (m->rkt)
                for (int k = 0; k < topic_count; k++)
                    if (!strcmp(rd_kafka_topic_name(m->rkt), topics[k])) t = k;
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF && t >= 0) {
                if (!ended[t][m->partition]) ended[t][m->partition] = 1, at_end++;
            } else if (m->err) {
                die("reading %s: %s", t >= 0 ? topics[t] : "?", rd_kafka_message_errstr(m));
            } else if (t >= 0) {
                counts[t]++;
            }
            rd_kafka_message_destroy(m);
        }
    }
    for (int t = 0; t < topic_count; t++) free(ended[t]);
    rd_kafka_queue_destroy(queue);
    close_reader(rk);
}

/* Counts until two passes in a row agree: the last transaction's records may still be arriving
 * on a broker that shows uncommitted records (tansu). */
static void count_records_settled(char **topics, int topic_count, long long *counts) {
    long long previous[MAX_TOPICS];
    count_records(topics, topic_count, previous);
    for (int pass = 0; pass < 10; pass++) {
        sleep_ms(200);
        count_records(topics, topic_count, counts);
        if (!memcmp(previous, counts, sizeof(long long) * (size_t)topic_count)) return;
        memcpy(previous, counts, sizeof(long long) * (size_t)topic_count);
    }
    die("the record counts did not settle");
}

/* ---- the watcher: a consumer thread counting or timing the answers ----------------------- */

static double watched_cpu_before[MAX_WATCHED], watched_cpu_after[MAX_WATCHED], self_cpu_before, self_cpu_after;

static void sample_cpu(double *watched, double *self) {
    for (int i = 0; i < options.watched_count; i++) watched[i] = process_cpu_seconds(options.watched[i].pid);
    *self = self_cpu_seconds();
}

struct watcher {
    char *topic;
    int status_filter;      /* count only settling status events */
    const char *marker;     /* when set, count only records whose value holds it */
    int64_t min_timestamp;  /* records older than this are from earlier steps: ignored */
    atomic_llong target;    /* stop after this many (LLONG_MAX until known) */
    atomic_llong counted;
    atomic_int drained;     /* every partition read to its end once */
    atomic_int done;        /* target reached */
    atomic_int stop;        /* give up */
    double done_mono;       /* when the target was reached */
    double *latencies;      /* ms, when timing */
    size_t latency_count, latency_capacity;
    pthread_t thread;
};

/* Does this status record settle its request (the states a send ends the benchmark in)? */
static int settles(const rd_kafka_message_t *m) {
    char type[32];
    if (!m->payload || !json_string_field(m->payload, m->len, "type", type, sizeof type)) return 0;
    return !strcmp(type, "queued") || !strcmp(type, "dispatched") || !strcmp(type, "rejected") || !strcmp(type, "validated") ||
           !strcmp(type, "subscribed");
}

static void *watch(void *argument) {
    struct watcher *w = argument;
    int partitions;
    rd_kafka_t *rk = make_reader(&w->topic, 1, &partitions);
    rd_kafka_queue_t *queue = rd_kafka_queue_get_consumer(rk);
    char *ended = calloc((size_t)partitions, 1);
    rd_kafka_message_t **batch = calloc(10000, sizeof *batch);
    if (!ended || !batch) die("out of memory");
    int at_end = 0;
    while (!atomic_load(&w->stop) && !atomic_load(&w->done)) {
        ssize_t n = consume_available(rk, queue, batch, 10000, 50);
        if (n < 0) die("consume: %s", rd_kafka_err2str(rd_kafka_last_error()));
        double now_ms = wall_ms();
        for (ssize_t i = 0; i < n; i++) {
            rd_kafka_message_t *m = batch[i];
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                if (m->partition >= 0 && m->partition < partitions && !ended[m->partition]) ended[m->partition] = 1, at_end++;
            } else if (m->err) {
                die("reading %s: %s", w->topic, rd_kafka_message_errstr(m));
            } else {
                rd_kafka_timestamp_type_t type;
                int64_t timestamp = rd_kafka_message_timestamp(m, &type);
                if (timestamp >= w->min_timestamp && (!w->status_filter || settles(m)) &&
                    (!w->marker || (m->payload && memmem(m->payload, m->len, w->marker, strlen(w->marker))))) {
                    if (w->latencies) {
                        if (w->latency_count == w->latency_capacity) {
                            w->latency_capacity = w->latency_capacity * 2 + 1024;
                            w->latencies = realloc(w->latencies, w->latency_capacity * sizeof *w->latencies);
                            if (!w->latencies) die("out of memory for latencies");
                        }
                        w->latencies[w->latency_count++] = now_ms - (double)timestamp;
                    }
                    atomic_fetch_add(&w->counted, 1);
                }
            }
            rd_kafka_message_destroy(m);
        }
        if (at_end == partitions && !atomic_load(&w->drained)) atomic_store(&w->drained, 1);
        if (atomic_load(&w->counted) >= atomic_load(&w->target)) {
            w->done_mono = mono_s();
            sample_cpu(watched_cpu_after, &self_cpu_after);
            atomic_store(&w->done, 1);
        }
    }
    free(batch);
    free(ended);
    rd_kafka_queue_destroy(queue);
    close_reader(rk);
    return NULL;
}

/* Starts a watcher on topic and waits until it has read every partition to its end once, so
 * that what it reads from then on is new. */
static void start_watcher(struct watcher *w, const char *topic, int status_filter, int timing, const char *marker) {
    memset(w, 0, sizeof *w);
    w->topic = strdup(topic);
    if (!w->topic) die("out of memory");
    w->status_filter = status_filter;
    w->marker = marker;
    w->min_timestamp = (int64_t)wall_ms();
    atomic_store(&w->target, LLONG_MAX);
    if (timing) {
        w->latency_capacity = 1 << 16;
        w->latencies = malloc(w->latency_capacity * sizeof *w->latencies);
        if (!w->latencies) die("out of memory");
    }
    int err = pthread_create(&w->thread, NULL, watch, w);
    if (err) die("pthread_create: %s", strerror(err));
    double deadline = mono_s() + 60;
    while (!atomic_load(&w->drained)) {
        if (mono_s() > deadline) die("the consumer of %s did not reach the end of its partitions within 60 s", topic);
        sleep_ms(5);
    }
}

/* Waits until the watcher has its target, or dies after the deadline (monotonic seconds). */
static void wait_watcher(struct watcher *w, double deadline, const char *what) {
    while (!atomic_load(&w->done)) {
        if (mono_s() > deadline) {
            atomic_store(&w->stop, 1);
            pthread_join(w->thread, NULL);
            printf("RESULT timed_out=1\nRESULT counted=%lld\n", (long long)atomic_load(&w->counted));
            fflush(stdout);
            die("timed out: %lld of %lld %s on %s after %.0f s", (long long)atomic_load(&w->counted),
                (long long)atomic_load(&w->target), what, w->topic, options.timeout_seconds);
        }
        sleep_ms(2);
    }
    pthread_join(w->thread, NULL);
}

static void free_watcher(struct watcher *w) {
    free(w->topic);
    free(w->latencies);
}

static void print_cpu(double seconds) {
    for (int i = 0; i < options.watched_count; i++) {
        double used = watched_cpu_after[i] - watched_cpu_before[i];
        if (watched_cpu_before[i] < 0 || watched_cpu_after[i] < 0) {
            printf("RESULT cpu_seconds.%s=nan\n", options.watched[i].name);
            note("cpu of %s (pid %ld): not readable", options.watched[i].name, options.watched[i].pid);
            continue;
        }
        printf("RESULT cpu_seconds.%s=%.2f\nRESULT cpu_percent.%s=%.0f\n", options.watched[i].name, used,
               options.watched[i].name, 100.0 * used / seconds);
        note("cpu of %s: %.2f s (%.0f%% of one core)", options.watched[i].name, used, 100.0 * used / seconds);
    }
    double used = self_cpu_after - self_cpu_before;
    printf("RESULT cpu_seconds.driver=%.2f\nRESULT cpu_percent.driver=%.0f\n", used, 100.0 * used / seconds);
}

/* ---- subcommands -------------------------------------------------------------------------- */

static void create_topics(void) {
    char *names[MAX_TOPICS];
    if (!options.topics) usage();
    int count = split_list(options.topics, names, MAX_TOPICS);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    conf_set(conf, "bootstrap.servers", options.bootstrap);
    conf_set(conf, "client.id", "e2e-driver-admin");
    rd_kafka_conf_set_error_cb(conf, on_error);
    rd_kafka_t *rk = new_client(RD_KAFKA_PRODUCER, conf);

    rd_kafka_NewTopic_t *new_topics[MAX_TOPICS];
    char errstr[512];
    for (int i = 0; i < count; i++) {
        new_topics[i] = rd_kafka_NewTopic_new(names[i], options.partitions, options.replication_factor, errstr, sizeof errstr);
        if (!new_topics[i]) die("topic %s: %s", names[i], errstr);
    }
    rd_kafka_AdminOptions_t *admin_options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    if (rd_kafka_AdminOptions_set_operation_timeout(admin_options, 30000, errstr, sizeof errstr) ||
        rd_kafka_AdminOptions_set_request_timeout(admin_options, 30000, errstr, sizeof errstr))
        die("admin options: %s", errstr);
    rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
    rd_kafka_CreateTopics(rk, new_topics, (size_t)count, admin_options, queue);
    rd_kafka_event_t *event = rd_kafka_queue_poll(queue, 60000);
    if (!event) die("CreateTopics: no answer within 60 s");
    if (rd_kafka_event_error(event)) die("CreateTopics: %s", rd_kafka_event_error_string(event));
    const rd_kafka_CreateTopics_result_t *result = rd_kafka_event_CreateTopics_result(event);
    if (!result) die("CreateTopics: unexpected event %s", rd_kafka_event_name(event));
    size_t result_count;
    const rd_kafka_topic_result_t **results = rd_kafka_CreateTopics_result_topics(result, &result_count);
    for (size_t i = 0; i < result_count; i++) {
        rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]);
        const char *name = rd_kafka_topic_result_name(results[i]);
        if (err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) note("topic %s exists already", name);
        else if (err) die("creating topic %s: %s: %s", name, rd_kafka_err2name(err), rd_kafka_topic_result_error_string(results[i]) ? rd_kafka_topic_result_error_string(results[i]) : "");
    }
    rd_kafka_event_destroy(event);
    rd_kafka_queue_destroy(queue);
    rd_kafka_AdminOptions_destroy(admin_options);
    rd_kafka_NewTopic_destroy_array(new_topics, (size_t)count);

    /* Creation is asynchronous on Kafka: wait until the metadata shows every topic. */
    for (int i = 0; i < count; i++) {
        int partitions = topic_partition_count(rk, names[i], 30000);
        if (partitions != options.partitions) note("topic %s has %d partitions, not %d", names[i], partitions, options.partitions);
        printf("RESULT partitions.%s=%d\n", names[i], partitions);
    }
    rd_kafka_destroy(rk);
    note("%d topics ready with %d partitions", count, options.partitions);
}

static void presence(void) {
    if (!options.topic || !options.group) usage();
    long long online = options.devices / 2;
    make_tokens(online);
    rd_kafka_t *producer = make_producer(5);
    int partitions = topic_partition_count(producer, options.topic, 30000);
    if (partitions > MAX_PARTITIONS) die("%s has more than %d partitions", options.topic, MAX_PARTITIONS);
    rd_kafka_topic_t *topic = rd_kafka_topic_new(producer, options.topic, NULL);
    if (!topic) die("topic %s: %s", options.topic, rd_kafka_err2str(rd_kafka_last_error()));
    double started = mono_s();
    char value[512];
    for (long long d = 0; d < online; d++) {
        int length = snprintf(value, sizeof value, "{\"token\":\"%s\",\"event\":\"connect\"}", token(d));
        produce(producer, topic, token(d), TOKEN_LENGTH, value, (size_t)length, (int64_t)wall_ms());
        if (d % 1000 == 0) rd_kafka_poll(producer, 0);
    }
    flush_or_die(producer, options.timeout_seconds);
    rd_kafka_topic_destroy(topic);
    note("%lld devices connected in %.2f s; waiting for group %s to commit them", online, mono_s() - started, options.group);

    /* The offset after the last event on each partition is what the group commits once it has
     * processed them all (the presence topic holds no transaction markers: plain producer). */
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    conf_set(conf, "bootstrap.servers", options.bootstrap);
    conf_set(conf, "client.id", "e2e-driver-offsets");
    conf_set(conf, "group.id", options.group);
    conf_set(conf, "enable.auto.commit", "false");
    rd_kafka_conf_set_error_cb(conf, on_error);
    rd_kafka_t *reader = new_client(RD_KAFKA_CONSUMER, conf);
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(partitions);
    for (int p = 0; p < partitions; p++)
        if (last_offset[p] >= 0) rd_kafka_topic_partition_list_add(list, options.topic, p);
    double deadline = mono_s() + options.timeout_seconds;
    for (;;) {
        rd_kafka_resp_err_t err = rd_kafka_committed(reader, list, 10000);
        int caught_up = 0;
        if (err) note("committed offsets of %s: %s", options.group, rd_kafka_err2str(err));
        else
            for (int i = 0; i < list->cnt; i++)
                if (!list->elems[i].err && list->elems[i].offset >= last_offset[list->elems[i].partition] + 1) caught_up++;
        if (caught_up == list->cnt) break;
        if (mono_s() > deadline) {
            for (int i = 0; i < list->cnt; i++)
                note("partition %d: committed %" PRId64 ", produced up to %" PRId64 " (%s)", list->elems[i].partition,
                     list->elems[i].offset, last_offset[list->elems[i].partition] + 1, rd_kafka_err2str(list->elems[i].err));
            die("group %s did not commit the presence events within %.0f s", options.group, options.timeout_seconds);
        }
        sleep_ms(100);
    }
    double seconds = mono_s() - started;
    rd_kafka_topic_partition_list_destroy(list);
    rd_kafka_destroy(reader);
    rd_kafka_destroy(producer);
    free(tokens);
    printf("RESULT devices=%lld\nRESULT seconds=%.2f\n", online, seconds);
    note("group %s has taken in %lld connects (%.2f s after the first)", options.group, online, seconds);
}

static void throughput(void) {
    if (!options.send_topic || !options.done_topic) usage();
    make_tokens(options.devices);
    char *count_names[MAX_TOPICS];
    int count_topics = options.count_topics ? split_list(options.count_topics, count_names, MAX_TOPICS) : 0;
    long long before[MAX_TOPICS], after[MAX_TOPICS];
    if (count_topics) count_records(count_names, count_topics, before);

    struct watcher w;
    long long answers = options.subscriptions > 0 ? options.requests * options.subscriptions : options.requests;
    start_watcher(&w, options.done_topic, options.status_filter, 0, NULL);
    atomic_store(&w.target, answers);
    rd_kafka_t *producer = make_producer(5);
    rd_kafka_topic_t *topic = rd_kafka_topic_new(producer, options.send_topic, NULL);
    if (!topic) die("topic %s: %s", options.send_topic, rd_kafka_err2str(rd_kafka_last_error()));
    (void)topic_partition_count(producer, options.send_topic, 30000); /* metadata before the clock starts */

    size_t value_size = options.subscriptions > 0 ? (size_t)options.subscriptions * (TOKEN_LENGTH + 3) + 128 : 1024;
    char *value = malloc(value_size);
    if (!value) die("out of memory");
    long long bytes = 0;
    sample_cpu(watched_cpu_before, &self_cpu_before);
    double started = mono_s();
    double deadline = started + options.timeout_seconds;
    for (long long i = 0; i < options.requests; i++) {
        long long device = i % options.devices;
        int length = options.subscriptions > 0 ? make_subscription(value, value_size, i, options.subscriptions)
                                                : make_request(value, value_size, i, device);
        bytes += length;
        if (options.subscriptions > 0) produce(producer, topic, NULL, 0, value, (size_t)length, (int64_t)wall_ms());
        else produce(producer, topic, token(device), TOKEN_LENGTH, value, (size_t)length, (int64_t)wall_ms());
        if (i % 1000 == 0) rd_kafka_poll(producer, 0);
    }
    double produce_called = mono_s() - started;
    flush_or_die(producer, deadline - mono_s());
    double produced = last_delivery_mono - started;
    note("produced %lld requests (%.0f bytes on average) in %.2f s (%.0f/s; all produce calls returned after %.2f s)",
         options.requests, (double)bytes / options.requests, produced, options.requests / produced, produce_called);
    wait_watcher(&w, deadline, options.status_filter ? "settling status events" : "records");
    double seconds = w.done_mono - started;
    double rate = answers / seconds;
    free(value);
    rd_kafka_topic_destroy(topic);
    rd_kafka_destroy(producer);

    printf("RESULT requests=%lld\nRESULT request_bytes=%.0f\nRESULT produce_msgs_per_s=%.0f\n", options.requests,
           (double)bytes / options.requests, options.requests / produced);
    printf("RESULT seconds=%.3f\nRESULT msgs_per_s=%.0f\n", seconds, rate);
    note("%lld requests (%lld answers) answered on %s in %.2f s: %.0f msgs/s", options.requests, answers,
         options.done_topic, seconds, rate);
    print_cpu(seconds);

    if (count_topics) {
        count_records_settled(count_names, count_topics, after);
        long long total = 0;
        for (int t = 0; t < count_topics; t++) {
            long long written = after[t] - before[t];
            total += written;
            printf("RESULT records.%s=%lld\nRESULT per_input.%s=%.4f\n", count_names[t], written, count_names[t],
                   (double)written / options.requests);
            note("%-40s %8lld records, %.3f per request", count_names[t], written, (double)written / options.requests);
        }
        printf("RESULT records_per_input=%.4f\n", (double)total / options.requests);
        note("records written per request, all output topics: %.3f", (double)total / options.requests);
    }
    free_watcher(&w);
    free(tokens);
}

static void fanout(void) {
    if (!options.send_topic || !options.done_topic || !options.topic_name || options.members <= 0) usage();
    struct watcher w;
    start_watcher(&w, options.done_topic, 1, 0, NULL);
    atomic_store(&w.target, options.members);
    rd_kafka_t *producer = make_producer(5);
    rd_kafka_topic_t *topic = rd_kafka_topic_new(producer, options.send_topic, NULL);
    if (!topic) die("topic %s: %s", options.send_topic, rd_kafka_err2str(rd_kafka_last_error()));
    (void)topic_partition_count(producer, options.send_topic, 30000); /* metadata before the clock starts */
    char value[512];
    int length = snprintf(value, sizeof value,
                          "{\"message\":{\"topic\":\"%s\",\"notification\":{\"title\":\"To all\",\"body\":\"one send\"}}}",
                          options.topic_name);
    if (length < 0 || (size_t)length >= sizeof value) die("the topic name is too long");
    sample_cpu(watched_cpu_before, &self_cpu_before);
    double started = mono_s();
    double deadline = started + options.timeout_seconds;
    produce(producer, topic, NULL, 0, value, (size_t)length, (int64_t)wall_ms());
    flush_or_die(producer, deadline - mono_s());
    wait_watcher(&w, deadline, "the members' queued and dispatched statuses");
    double seconds = w.done_mono - started;
    double rate = options.members / seconds;
    rd_kafka_topic_destroy(topic);
    rd_kafka_destroy(producer);
    printf("RESULT members=%lld\nRESULT seconds=%.3f\nRESULT msgs_per_s=%.0f\n", options.members, seconds, rate);
    note("a send to %s reached its %lld members in %.2f s: %.0f devices/s", options.topic_name, options.members,
         seconds, rate);
    print_cpu(seconds);
    free_watcher(&w);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-quantile (0 < p <= 1) of sorted values, nearest rank. */
static double quantile(const double *sorted, size_t count, double p) {
    size_t rank = (size_t)(p * (double)count + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > count) rank = count;
    return sorted[rank - 1];
}

static void latency(void) {
    if (!options.send_topic || !options.done_topic) usage();
    long long online = options.devices / 2;
    make_tokens(online);
    struct watcher w;
    start_watcher(&w, options.done_topic, 0, 1, NULL);
    rd_kafka_t *producer = make_producer(1);
    rd_kafka_topic_t *topic = rd_kafka_topic_new(producer, options.send_topic, NULL);
    if (!topic) die("topic %s: %s", options.send_topic, rd_kafka_err2str(rd_kafka_last_error()));
    (void)topic_partition_count(producer, options.send_topic, 30000);

    /* Paced: by time t, floor(rate * t) requests have been produced. */
    char value[1024];
    long long sent = 0;
    sample_cpu(watched_cpu_before, &self_cpu_before);
    double started = mono_s();
    long long total = (long long)(options.rate * options.seconds);
    if (total < 1) die("--rate times --seconds is less than one request");
    while (sent < total) {
        double elapsed = mono_s() - started;
        long long due = elapsed >= options.seconds ? total : (long long)(options.rate * elapsed);
        for (; sent < due; sent++) {
            long long device = sent % online;
            int length = make_request(value, sizeof value, sent, device);
            produce(producer, topic, token(device), TOKEN_LENGTH, value, (size_t)length, (int64_t)wall_ms());
        }
        rd_kafka_poll(producer, 0);
        double next = (double)(sent + 1) / options.rate - (mono_s() - started);
        sleep_ms(next > 0.001 ? (next < 0.002 ? next * 1000.0 : 2.0) : 0.05);
    }
    double production = mono_s() - started;
    atomic_store(&w.target, sent);
    flush_or_die(producer, options.timeout_seconds);
    wait_watcher(&w, mono_s() + options.timeout_seconds, "records");
    double seconds = w.done_mono - started;
    rd_kafka_topic_destroy(topic);
    rd_kafka_destroy(producer);

    qsort(w.latencies, w.latency_count, sizeof *w.latencies, compare_doubles);
    double sum = 0;
    for (size_t i = 0; i < w.latency_count; i++) sum += w.latencies[i];
    double p50 = quantile(w.latencies, w.latency_count, 0.50), p99 = quantile(w.latencies, w.latency_count, 0.99);
    double max = w.latencies[w.latency_count - 1];
    printf("RESULT sent=%lld\nRESULT rate=%.0f\nRESULT count=%zu\n", sent, sent / production, w.latency_count);
    printf("RESULT p50_ms=%.1f\nRESULT p99_ms=%.1f\nRESULT max_ms=%.1f\nRESULT mean_ms=%.1f\n", p50, p99, max,
           sum / (double)w.latency_count);
    printf("RESULT ack_mean_ms=%.1f\nRESULT ack_max_ms=%.1f\n", ack_sum_ms / (double)sent, ack_max_ms);
    note("%lld requests at %.0f/s to %lld online devices: latency p50 %.1f ms, p99 %.1f ms, max %.1f ms (%zu records on %s)",
         sent, sent / production, online, p50, p99, max, w.latency_count, options.done_topic);
    note("(of which producing: delivery reports %.1f ms on average, at most %.1f ms)", ack_sum_ms / (double)sent, ack_max_ms);
    print_cpu(seconds);
    free_watcher(&w);
    free(tokens);
}

/* ---- storm: unicasts timed while many fan-outs run --------------------------------------- */

#define PROBE_MARKER "\"storm-probe\""

static struct {
    long pid;
    atomic_int stop;
    long long peak_kib, samples;
    pthread_t thread;
} rss_sampler;

static long long rss_kib(long pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    long long kib = -1;
    while (fgets(line, sizeof line, file))
        if (!strncmp(line, "VmRSS:", 6)) kib = atoll(line + 6);
    fclose(file);
    return kib;
}

static void *sample_rss(void *argument) {
    (void)argument;
    while (!atomic_load(&rss_sampler.stop)) {
        long long kib = rss_kib(rss_sampler.pid);
        if (kib > rss_sampler.peak_kib) rss_sampler.peak_kib = kib;
        rss_sampler.samples++;
        sleep_ms(50);
    }
    return NULL;
}

/* Paced probes to devices members .. members+probes-1 (online, in no topic) until *until is
 * reached or, with until NULL, for options.seconds; returns how many were produced. */
static long long send_probes(rd_kafka_t *producer, rd_kafka_topic_t *topic, long long first, atomic_llong *until,
                             long long until_count, double deadline) {
    char value[1024];
    long long sent = 0;
    double started = mono_s();
    for (;;) {
        double elapsed = mono_s() - started;
        if (until ? atomic_load(until) >= until_count : elapsed >= options.seconds) break;
        if (mono_s() > deadline) die("the storm did not end within %.0f s", options.timeout_seconds);
        for (long long due = (long long)(options.rate * elapsed) + 1; sent < due; sent++) {
            long long device = options.members + (first + sent) % options.probes;
            int length = snprintf(value, sizeof value,
                                  "{\"message\":{\"token\":\"%s\",\"notification\":{\"title\":\"Direct\",\"body\":\"%lld\"},"
                                  "\"data\":{" PROBE_MARKER ":\"%lld\"}}}",
                                  token(device), first + sent, first + sent);
            produce(producer, topic, token(device), TOKEN_LENGTH, value, (size_t)length, (int64_t)wall_ms());
        }
        rd_kafka_poll(producer, 0);
        sleep_ms(2);
    }
    return sent;
}

static void print_probe_latencies(const char *phase, struct watcher *w) {
    qsort(w->latencies, w->latency_count, sizeof *w->latencies, compare_doubles);
    double p50 = quantile(w->latencies, w->latency_count, 0.50), p99 = quantile(w->latencies, w->latency_count, 0.99);
    double max = w->latencies[w->latency_count - 1];
    printf("RESULT %s.probes=%zu\nRESULT %s.p50_ms=%.1f\nRESULT %s.p99_ms=%.1f\nRESULT %s.max_ms=%.1f\n", phase,
           w->latency_count, phase, p50, phase, p99, phase, max);
    note("%s: %zu unicasts, produce to inbox record p50 %.1f ms, p99 %.1f ms, max %.1f ms", phase, w->latency_count, p50,
         p99, max);
}

/*
 * Unicasts to online devices in no topic, timed from their produce to their inbox record: first
 * for --seconds on the quiet bridge, then while --sends sends to the topic of --members members
 * (all online) run at once, until every member has its status for every send. Reports both
 * phases' latencies and the watched process's RSS before the storm and at its peak (sampled
 * every 50 ms).
 */
static void storm(void) {
    if (!options.send_topic || !options.done_topic || !options.inbox_topic || !options.topic_name ||
        options.members <= 0 || options.sends <= 0 || options.probes <= 0 || options.watched_count < 1)
        usage();
    make_tokens(options.members + options.probes);
    rd_kafka_t *producer = make_producer(1);
    rd_kafka_topic_t *topic = rd_kafka_topic_new(producer, options.send_topic, NULL);
    if (!topic) die("topic %s: %s", options.send_topic, rd_kafka_err2str(rd_kafka_last_error()));
    (void)topic_partition_count(producer, options.send_topic, 30000);

    struct watcher quiet;
    start_watcher(&quiet, options.inbox_topic, 0, 1, PROBE_MARKER);
    long long quiet_sent = send_probes(producer, topic, 0, NULL, 0, mono_s() + options.timeout_seconds);
    atomic_store(&quiet.target, quiet_sent);
    flush_or_die(producer, options.timeout_seconds);
    wait_watcher(&quiet, mono_s() + options.timeout_seconds, "quiet probes");
    print_probe_latencies("quiet", &quiet);
    free_watcher(&quiet);

    struct watcher probes, statuses;
    start_watcher(&probes, options.inbox_topic, 0, 1, PROBE_MARKER);
    start_watcher(&statuses, options.done_topic, 1, 0, NULL);
    long long copies = options.sends * options.members;
    rss_sampler.pid = options.watched[0].pid;
    long long before = 0;
    for (int i = 0; i < 10; i++, sleep_ms(20)) before += rss_kib(rss_sampler.pid);
    before /= 10;
    rss_sampler.peak_kib = before;
    int err = pthread_create(&rss_sampler.thread, NULL, sample_rss, NULL);
    if (err) die("pthread_create: %s", strerror(err));

    char value[512];
    int length = snprintf(value, sizeof value,
                          "{\"message\":{\"topic\":\"%s\",\"notification\":{\"title\":\"Breaking\",\"body\":\"news\"}}}",
                          options.topic_name);
    if (length < 0 || (size_t)length >= sizeof value) die("the topic name is too long");
    double started = mono_s();
    double deadline = started + options.timeout_seconds;
    for (long long i = 0; i < options.sends; i++)
        produce(producer, topic, NULL, 0, value, (size_t)length, (int64_t)wall_ms());
    rd_kafka_poll(producer, 0);
    long long sent = send_probes(producer, topic, quiet_sent, &statuses.counted, copies, deadline);
    atomic_store(&probes.target, sent);
    atomic_store(&statuses.target, copies + sent);
    flush_or_die(producer, deadline - mono_s());
    wait_watcher(&probes, deadline, "probes");
    wait_watcher(&statuses, deadline, "the members' and probes' statuses");
    double seconds = statuses.done_mono - started;
    atomic_store(&rss_sampler.stop, 1);
    pthread_join(rss_sampler.thread, NULL);
    rd_kafka_topic_destroy(topic);
    rd_kafka_destroy(producer);

    print_probe_latencies("storm", &probes);
    printf("RESULT sends=%lld\nRESULT members=%lld\nRESULT seconds=%.3f\nRESULT copies_per_s=%.0f\n", options.sends,
           options.members, seconds, copies / seconds);
    printf("RESULT rss_before_mib=%.0f\nRESULT rss_peak_mib=%.0f\nRESULT rss_growth_mib=%.0f\n", before / 1024.0,
           rss_sampler.peak_kib / 1024.0, (rss_sampler.peak_kib - before) / 1024.0);
    note("%lld sends to %lld members reached them all in %.2f s (%.0f copies/s); RSS %.0f MiB before, %.0f MiB at "
         "most (+%.0f MiB)",
         options.sends, options.members, seconds, copies / seconds, before / 1024.0, rss_sampler.peak_kib / 1024.0,
         (rss_sampler.peak_kib - before) / 1024.0);
    free_watcher(&probes);
    free_watcher(&statuses);
    free(tokens);
}

int main(int argc, char **argv) {
    e2e_program = "e2e_driver";
    if (argc < 2) usage();
    const char *command = argv[1];
    parse_options(argc - 1, argv + 1);
    if (!strcmp(command, "create-topics")) create_topics();
    else if (!strcmp(command, "presence")) presence();
    else if (!strcmp(command, "throughput")) throughput();
    else if (!strcmp(command, "fanout")) fanout();
    else if (!strcmp(command, "latency")) latency();
    else if (!strcmp(command, "storm")) storm();
    else usage();
    return 0;
}
