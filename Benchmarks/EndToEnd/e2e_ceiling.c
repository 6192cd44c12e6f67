/*
 * e2e_ceiling: the ceilings the end-to-end benchmark compares the bridge against. A consume-then-
 * produce loop with no processing at all, linked to the same librdkafka as the bridge:
 *
 *   --mode plain  one output record per input (same key, value and timestamp), input offsets
 *                 committed asynchronously every --commit-interval-ms. What Kafka alone costs
 *                 for "read a record, write a record".
 *   --mode eos    what exactly-once costs: --outputs-per-input K records per input (K may be a
 *                 real number such as 2.5: inputs alternate between floor and ceil so the average
 *                 is K), written inside a transaction that also carries the input offsets
 *                 (send_offsets_to_transaction) and is committed every --commit-interval-ms.
 *                 The first output of each input goes to --output (the record the driver counts
 *                 and times); the others go to --extra-topic (required when K > 1), so the
 *                 driver sees exactly one record per input.
 *
 * The consumer is a group member (read_committed, auto commit off, fetch.wait.max.ms=10,
 * auto.offset.reset=earliest) taking batches of what has arrived (consume_available in
 * e2e_common.h). Each --idle-topic (one per option, at most 8) is subscribed to besides the
 * input, as a bridge reads its presence and repartition topics while only requests arrive: a
 * fetch then carries their partitions too, which costs latency on brokers where every partition
 * of a fetch does (tansu). Nothing writes to them in the benchmark; a record there would be
 * handled as an input. It runs until SIGTERM or SIGINT (then commits what it has and leaves the
 * group) or --max-seconds. --ready-file is written
 * once the group has assigned partitions, so a benchmark can start its clock after the join.
 * At exit it prints "RESULT consumed=... produced=... transactions=..." on standard output.
 */
#include "e2e_common.h"

#include <getopt.h>
#include <math.h>

enum mode { MODE_PLAIN, MODE_EOS };

static struct {
    const char *bootstrap;
    const char *input;
    const char *output;
    const char *extra_topic; /* where the outputs after the first go (eos, K > 1) */
    const char *idle_topics[8]; /* subscribed to besides the input */
    int idle_topic_count;
    const char *group;
    const char *transactional_id;
    const char *ready_file;
    enum mode mode;
    double outputs_per_input;
    int commit_interval_ms;
    double max_seconds;
    int batch_size;
    int linger_ms;
} options = {
    .mode = MODE_PLAIN,
    .outputs_per_input = 1.0,
    .commit_interval_ms = 100,
    .max_seconds = 3600,
    .batch_size = 10000,
    .linger_ms = 5,
};

static volatile sig_atomic_t stop_requested = 0;
static void on_signal(int signal_number) {
    (void)signal_number;
    stop_requested = 1;
}

static rd_kafka_t *consumer, *producer;
/* Next offsets (last consumed + 1) of the inputs produced since the last commit. */
static rd_kafka_topic_partition_list_t *pending_offsets;
static long long consumed, produced, transactions, inputs_seen;
static volatile long long delivery_failures;
static int ready_written;

static void usage(void) {
    fprintf(stderr,
            "usage: e2e_ceiling --mode plain|eos --bootstrap HOST:PORT --input TOPIC --output TOPIC --group GROUP\n"
            "         [--outputs-per-input K] [--extra-topic TOPIC] [--commit-interval-ms 100]\n"
            "         [--transactional-id ID] [--max-seconds 3600] [--ready-file PATH] [--batch 10000]\n"
            "         [--linger-ms 5] [--idle-topic TOPIC]... (at most 8)\n");
    exit(2);
}

static void parse_options(int argc, char **argv) {
    static const struct option long_options[] = {
        {"mode", required_argument, 0, 'm'},          {"bootstrap", required_argument, 0, 'b'},
        {"input", required_argument, 0, 'i'},         {"output", required_argument, 0, 'o'},
        {"extra-topic", required_argument, 0, 'x'},   {"group", required_argument, 0, 'g'},
        {"outputs-per-input", required_argument, 0, 'k'}, {"commit-interval-ms", required_argument, 0, 'c'},
        {"transactional-id", required_argument, 0, 't'}, {"max-seconds", required_argument, 0, 's'},
        {"ready-file", required_argument, 0, 'r'},    {"batch", required_argument, 0, 'B'},
        {"linger-ms", required_argument, 0, 'L'},     {"idle-topic", required_argument, 0, 'I'},
        {0, 0, 0, 0},
    };
    options.bootstrap = getenv("KAFKA_BOOTSTRAP_SERVERS");
    int c;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (!strcmp(optarg, "plain")) options.mode = MODE_PLAIN;
            else if (!strcmp(optarg, "eos")) options.mode = MODE_EOS;
            else usage();
            break;
        case 'b': options.bootstrap = optarg; break;
        case 'i': options.input = optarg; break;
        case 'o': options.output = optarg; break;
        case 'x': options.extra_topic = optarg; break;
        case 'g': options.group = optarg; break;
        case 'k': options.outputs_per_input = atof(optarg); break;
        case 'c': options.commit_interval_ms = atoi(optarg); break;
        case 't': options.transactional_id = optarg; break;
        case 's': options.max_seconds = atof(optarg); break;
        case 'r': options.ready_file = optarg; break;
        case 'B': options.batch_size = atoi(optarg); break;
        case 'L': options.linger_ms = atoi(optarg); break;
        case 'I':
            if (options.idle_topic_count == (int)(sizeof options.idle_topics / sizeof *options.idle_topics))
                die("at most %zu --idle-topic", sizeof options.idle_topics / sizeof *options.idle_topics);
            options.idle_topics[options.idle_topic_count++] = optarg;
            break;
        default: usage();
        }
    }
    if (!options.bootstrap || !options.input || !options.output || !options.group) usage();
    if (options.outputs_per_input < 1.0 || options.outputs_per_input > 100.0) die("--outputs-per-input must be 1 to 100");
    if (options.mode == MODE_PLAIN && options.outputs_per_input != 1.0) die("--outputs-per-input needs --mode eos");
    if (options.outputs_per_input > 1.0 && !options.extra_topic) die("--outputs-per-input above 1 needs --extra-topic");
    if (options.commit_interval_ms < 1 || options.batch_size < 1 || options.max_seconds <= 0
        || options.linger_ms < 0) usage();
    for (int i = 0; i < options.idle_topic_count; i++) {
        const char *idle = options.idle_topics[i];
        if (!strcmp(idle, options.input) || !strcmp(idle, options.output)
            || (options.extra_topic && !strcmp(idle, options.extra_topic)))
            die("--idle-topic %s is also the input or an output", idle);
    }
}

/* Delivery reports: only failures matter (a transactional failure also shows at commit). */
static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *message, void *opaque) {
    (void)rk, (void)opaque;
    if (message->err) {
        if (delivery_failures++ < 5) note("delivery failed: %s", rd_kafka_err2str(message->err));
    }
}

static void on_offset_commit(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *offsets,
                             void *opaque) {
    (void)rk, (void)offsets, (void)opaque;
    /* _NO_OFFSET: nothing new to commit since the last time. */
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET) note("offset commit failed: %s", rd_kafka_err2str(err));
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

/* Commits the open transaction with the pending input offsets, then begins the next one. */
static void commit_transaction(void) {
    if (pending_offsets->cnt == 0) return;
    rd_kafka_consumer_group_metadata_t *metadata = rd_kafka_consumer_group_metadata(consumer);
    if (!metadata) die("rd_kafka_consumer_group_metadata returned nothing");
    rd_kafka_error_t *error;
    for (int attempt = 1;; attempt++) {
        error = rd_kafka_send_offsets_to_transaction(producer, pending_offsets, metadata, 30000);
        if (!error) break;
        if (!rd_kafka_error_is_retriable(error) || attempt == 5) die_error("send_offsets_to_transaction", error);
        note("send_offsets_to_transaction (retrying): %s", rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
    }
    rd_kafka_consumer_group_metadata_destroy(metadata);
    for (int attempt = 1;; attempt++) {
        error = rd_kafka_commit_transaction(producer, 30000);
        if (!error) break;
        if (!rd_kafka_error_is_retriable(error) || attempt == 5) die_error("commit_transaction", error);
        note("commit_transaction (retrying): %s", rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
    }
    if (delivery_failures) die("%lld records were not delivered", (long long)delivery_failures);
    transactions++;
    rd_kafka_topic_partition_list_destroy(pending_offsets);
    pending_offsets = rd_kafka_topic_partition_list_new(16);
    if ((error = rd_kafka_begin_transaction(producer))) die_error("begin_transaction", error);
}

/* Plain mode: commits the offsets stored so far (those of the records already returned). */
static void commit_plain(int async) {
    rd_kafka_resp_err_t err = rd_kafka_commit(consumer, NULL, async);
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET) die("commit: %s", rd_kafka_err2str(err));
}

static void write_ready_file(int partitions) {
    if (ready_written || !options.ready_file) return;
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp", options.ready_file);
    FILE *file = fopen(temporary, "w");
    if (!file) die("cannot write %s: %s", temporary, strerror(errno));
    fprintf(file, "assigned %d partitions\n", partitions);
    if (fclose(file) != 0 || rename(temporary, options.ready_file) != 0)
        die("cannot write %s: %s", options.ready_file, strerror(errno));
    ready_written = 1;
}

/*
 * Eager (range) rebalancing. Before partitions are revoked, everything consumed from them is
 * committed (the open transaction in eos mode, the stored offsets in plain mode), so another member
 * starts where this one stopped. The benchmark runs one member per group, so this happens only at
 * the start (assignment) and at the close (revocation), never between the records of a batch.
 */
static void on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *partitions,
                         void *opaque) {
    (void)opaque;
    rd_kafka_resp_err_t assign_err;
    switch (err) {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        note("assigned %d partitions", partitions->cnt);
        if ((assign_err = rd_kafka_assign(rk, partitions))) die("assign: %s", rd_kafka_err2str(assign_err));
        write_ready_file(partitions->cnt);
        break;
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
        note("%d partitions revoked", partitions->cnt);
        if (options.mode == MODE_EOS) commit_transaction();
        else {
            rd_kafka_resp_err_t flush_err = rd_kafka_flush(producer, 30000);
            if (flush_err) die("flush before revocation: %s", rd_kafka_err2str(flush_err));
            commit_plain(0);
        }
        if ((assign_err = rd_kafka_assign(rk, NULL))) die("unassign: %s", rd_kafka_err2str(assign_err));
        break;
    default:
        note("rebalance error: %s", rd_kafka_err2str(err));
        rd_kafka_assign(rk, NULL);
        break;
    }
}

/* Produces a copy of input (key, value, timestamp) to topic, waiting for room in the producer's
 * queue when it is full. */
static void produce(const char *topic, const rd_kafka_message_t *input, int64_t timestamp) {
    for (;;) {
        rd_kafka_resp_err_t err =
            rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(input->key, input->key_len),
                              RD_KAFKA_V_VALUE(input->payload, input->len), RD_KAFKA_V_TIMESTAMP(timestamp),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (!err) {
            produced++;
            return;
        }
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) die("produce to %s: %s", topic, rd_kafka_err2str(err));
        rd_kafka_poll(producer, 10);
    }
}

/* Handles one consumed record: its outputs, and its offset for the next commit (eos). */
static void handle(const rd_kafka_message_t *input) {
    rd_kafka_timestamp_type_t type;
    int64_t timestamp = rd_kafka_message_timestamp(input, &type);
    if (timestamp < 0) timestamp = 0;
    /* Input i writes floor((i+1)K) - floor(iK) records: floor and ceil alternate, average K. */
    long long outputs = 1;
    if (options.mode == MODE_EOS) {
        outputs = (long long)floor((double)(inputs_seen + 1) * options.outputs_per_input + 1e-9) -
                  (long long)floor((double)inputs_seen * options.outputs_per_input + 1e-9);
        if (outputs < 1) outputs = 1;
    }
    inputs_seen++;
    produce(options.output, input, timestamp);
    for (long long i = 1; i < outputs; i++) produce(options.extra_topic, input, timestamp);
    if (options.mode == MODE_EOS) {
        const char *topic = rd_kafka_topic_name(input->rkt);
        rd_kafka_topic_partition_t *entry = rd_kafka_topic_partition_list_find(pending_offsets, topic, input->partition);
        if (!entry) entry = rd_kafka_topic_partition_list_add(pending_offsets, topic, input->partition);
        entry->offset = input->offset + 1;
    }
}

int main(int argc, char **argv) {
    e2e_program = "e2e_ceiling";
    parse_options(argc, argv);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    char client_id[256], transactional_id[512];
    snprintf(client_id, sizeof client_id, "e2e-ceiling-%s", options.mode == MODE_EOS ? "eos" : "plain");
    if (options.transactional_id) snprintf(transactional_id, sizeof transactional_id, "%s", options.transactional_id);
    else snprintf(transactional_id, sizeof transactional_id, "%s-%ld-%ld", options.group, (long)getpid(), (long)time(NULL));

    /* The producer: the same settings as the bridge's (idempotent, murmur2 like the Java client,
     * lingering as long as the bridge does in the same mode: --linger-ms). */
    char linger[32];
    snprintf(linger, sizeof linger, "%d", options.linger_ms);
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    conf_set(conf, "bootstrap.servers", options.bootstrap);
    conf_set(conf, "client.id", client_id);
    conf_set(conf, "linger.ms", linger);
    conf_set(conf, "enable.idempotence", "true");
    conf_set(conf, "partitioner", "murmur2_random");
    conf_set(conf, "queue.buffering.max.messages", "1000000");
    if (options.mode == MODE_EOS) {
        conf_set(conf, "transactional.id", transactional_id);
        conf_set(conf, "transaction.timeout.ms", "20000");
    }
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_error_cb(conf, on_error);
    producer = new_client(RD_KAFKA_PRODUCER, conf);

    rd_kafka_error_t *error;
    pending_offsets = rd_kafka_topic_partition_list_new(16);
    if (options.mode == MODE_EOS) {
        if ((error = rd_kafka_init_transactions(producer, 30000))) die_error("init_transactions", error);
        if ((error = rd_kafka_begin_transaction(producer))) die_error("begin_transaction", error);
    }

    /* The consumer: a group member, offsets committed by hand only. */
    conf = rd_kafka_conf_new();
    conf_set(conf, "bootstrap.servers", options.bootstrap);
    conf_set(conf, "client.id", client_id);
    conf_set(conf, "group.id", options.group);
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "isolation.level", "read_committed");
    conf_set(conf, "fetch.wait.max.ms", "10");
    conf_set(conf, "auto.offset.reset", "earliest");
    conf_set(conf, "session.timeout.ms", "6000");
    conf_set(conf, "partition.assignment.strategy", "range");
    rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
    rd_kafka_conf_set_offset_commit_cb(conf, on_offset_commit);
    rd_kafka_conf_set_error_cb(conf, on_error);
    consumer = new_client(RD_KAFKA_CONSUMER, conf);
    rd_kafka_resp_err_t err = rd_kafka_poll_set_consumer(consumer);
    if (err) die("poll_set_consumer: %s", rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_t *subscription = rd_kafka_topic_partition_list_new(1 + options.idle_topic_count);
    rd_kafka_topic_partition_list_add(subscription, options.input, RD_KAFKA_PARTITION_UA);
    for (int i = 0; i < options.idle_topic_count; i++)
        rd_kafka_topic_partition_list_add(subscription, options.idle_topics[i], RD_KAFKA_PARTITION_UA);
    if ((err = rd_kafka_subscribe(consumer, subscription)))
        die("subscribe to %s and %d idle topics: %s", options.input, options.idle_topic_count, rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_destroy(subscription);
    rd_kafka_queue_t *queue = rd_kafka_queue_get_consumer(consumer);
    if (!queue) die("no consumer queue");

    note("%s ceiling: %s (+ %d idle topics) -> %s%s%s, group %s, %.3g outputs per input, commit every %d ms",
         options.mode == MODE_EOS ? "eos" : "plain", options.input, options.idle_topic_count, options.output,
         options.extra_topic ? " + " : "", options.extra_topic ? options.extra_topic : "", options.group,
         options.outputs_per_input, options.commit_interval_ms);

    rd_kafka_message_t **batch = calloc((size_t)options.batch_size, sizeof *batch);
    if (!batch) die("out of memory");
    double started = mono_s(), last_commit = started;
    while (!stop_requested) {
        if (mono_s() - started > options.max_seconds) {
            note("stopping after --max-seconds %.0f", options.max_seconds);
            break;
        }
        ssize_t count = consume_available(consumer, queue, batch, (size_t)options.batch_size, 100);
        if (count < 0) die("consume: %s", rd_kafka_err2str(rd_kafka_last_error()));
        for (ssize_t i = 0; i < count; i++) {
            rd_kafka_message_t *message = batch[i];
            if (message->err) {
                if (message->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
                    note("consumer: %s", rd_kafka_message_errstr(message));
            } else {
                consumed++;
                handle(message);
            }
            rd_kafka_message_destroy(message);
        }
        rd_kafka_poll(producer, 0); /* delivery reports */
        if (delivery_failures) die("%lld records were not delivered", (long long)delivery_failures);
        double now = mono_s();
        if ((now - last_commit) * 1000.0 >= options.commit_interval_ms) {
            if (options.mode == MODE_EOS) commit_transaction();
            else commit_plain(1);
            last_commit = now;
        }
    }
    free(batch);

    /* Leave cleanly: commit what was consumed, then leave the group (the revocation commits nothing more). */
    if (options.mode == MODE_EOS) {
        commit_transaction();
        if ((error = rd_kafka_abort_transaction(producer, 30000))) die_error("abort of the empty transaction", error);
    } else {
        if ((err = rd_kafka_flush(producer, 30000))) die("flush: %s", rd_kafka_err2str(err));
        commit_plain(0);
    }
    rd_kafka_queue_destroy(queue);
    if ((err = rd_kafka_consumer_close(consumer))) note("consumer close: %s", rd_kafka_err2str(err));
    rd_kafka_destroy(consumer);
    if ((err = rd_kafka_flush(producer, 30000))) die("flush: %s", rd_kafka_err2str(err));
    if (delivery_failures) die("%lld records were not delivered", (long long)delivery_failures);
    rd_kafka_destroy(producer);
    rd_kafka_topic_partition_list_destroy(pending_offsets);
    printf("RESULT consumed=%lld\nRESULT produced=%lld\nRESULT transactions=%lld\n", consumed, produced, transactions);
    note("consumed %lld, produced %lld, %lld transactions", consumed, produced, transactions);
    return 0;
}
