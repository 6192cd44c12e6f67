import DeviceQueues
import TestSupport
import Testing

private let t0: Int64 = 1_700_000_000_000

private func message(_ id: String, key: String? = nil, at time: Int64 = t0, ttl: Int64? = nil) -> QueuedMessage {
    QueuedMessage(id: id, collapseKey: key, sentAt: time, expiresAt: ttl.map { time + $0 }, apns: Array(id.utf8))
}

/// A queue for a device that was seen at t0 and is offline.
private func offline() -> DeviceQueue { DeviceQueue(firstSeenAt: t0) }

extension QueueOutput {
    fileprivate var dispatchedIDs: [String] {
        inbox.compactMap { if case .message(let message) = $0 { message.id } else { nil } }
    }
}

@Suite("Device queue rules")
struct DeviceQueueTests {
    let rules = QueueRules()

    @Test("an offline device's messages are queued, then flushed in send order on connect")
    func offlineQueueThenFlush() {
        var queue = offline()
        for id in ["a", "b", "c"] {
            #expect(queue.send(message(id), at: t0, rules: rules).statuses == [.queued(messageID: id, at: t0)])
        }
        let output = queue.connect(at: t0 + 1000, rules: rules)
        #expect(output.dispatchedIDs == ["a", "b", "c"])
        #expect(output.statuses == ["a", "b", "c"].map { .dispatched(messageID: $0, at: t0 + 1000) })
        #expect(queue.waiting.isEmpty && queue.isOnline)
    }

    @Test("an online device's messages pass straight through, dispatched at the send's time")
    func onlinePassThrough() {
        var queue = offline()
        _ = queue.connect(at: t0, rules: rules)
        let output = queue.send(message("a", at: t0 + 5), at: t0 + 5, rules: rules)
        #expect(output.dispatchedIDs == ["a"])
        #expect(output.statuses == [.dispatched(messageID: "a", at: t0 + 5)])
        queue.disconnect(at: t0 + 6)
        #expect(queue.send(message("b"), at: t0 + 7, rules: rules).statuses == [.queued(messageID: "b", at: t0 + 7)])
    }

    @Test("the message that would exceed max_pending is discarded with every waiting one")
    func overflow() {
        var queue = offline()
        for index in 0..<100 { _ = queue.send(message("m\(index)"), at: t0, rules: rules) }
        let output = queue.send(message("m100"), at: t0 + 1, rules: rules)
        let ids = (0...100).map { "m\($0)" }
        #expect(output.statuses == [.deletedMessages(reason: .tooManyPending, count: 101, messageIDs: ids, at: t0 + 1)])
        #expect(queue.waiting.isEmpty)
        #expect(queue.pendingNotice == DeletionNotice(reason: .tooManyPending, count: 101))
    }

    @Test("overflow then connect: the deleted_messages notice comes first, then what came after")
    func overflowThenConnect() {
        var rules = self.rules
        rules.maxPending = 2
        var queue = offline()
        for id in ["a", "b", "c", "d"] { _ = queue.send(message(id), at: t0, rules: rules) }
        let output = queue.connect(at: t0 + 10, rules: rules)
        #expect(
            output.inbox == [
                .deletedMessages(reason: .tooManyPending, count: 3),
                .message(message("d", ttl: rules.defaultTimeToLive)),
            ])
        #expect(output.statuses == [.dispatched(messageID: "d", at: t0 + 10)])
        #expect(queue.pendingNotice == nil)
    }

    @Test("collapsible messages do not count toward max_pending")
    func collapsibleNotCounted() {
        var rules = self.rules
        rules.maxPending = 1
        var queue = offline()
        _ = queue.send(message("k", key: "score"), at: t0, rules: rules)
        #expect(queue.send(message("a"), at: t0, rules: rules).statuses == [.queued(messageID: "a", at: t0)])
        #expect(queue.waiting.map(\.id) == ["k", "a"])
    }

    @Test("a message with a collapse key replaces the waiting one with the same key")
    func collapseReplaces() {
        var queue = offline()
        _ = queue.send(message("old", key: "score"), at: t0, rules: rules)
        _ = queue.send(message("x"), at: t0, rules: rules)
        let output = queue.send(message("new", key: "score"), at: t0 + 1, rules: rules)
        #expect(
            output.statuses == [
                .collapsed(messageID: "old", reason: .collapseKey, replacedBy: "new", at: t0 + 1),
                .queued(messageID: "new", at: t0 + 1),
            ])
        #expect(queue.waiting.map(\.id) == ["x", "new"])
    }

    @Test(
        "a fifth collapse key evicts the oldest key; keys are told apart by their bytes, so canonically equivalent keys count as two",
        arguments: [
            ["k1", "k2", "k3", "k4"],
            // "é" composed, and decomposed: equal as Swift strings, different as bytes.
            ["k1", "k2", "\u{E9}", "e\u{301}"],
        ])
    func collapseKeyLimit(_ keys: [String]) {
        var queue = offline()
        for key in keys { _ = queue.send(message(key, key: key), at: t0, rules: rules) }
        let output = queue.send(message("k5", key: "k5"), at: t0 + 1, rules: rules)
        #expect(
            output.statuses == [
                .collapsed(messageID: "k1", reason: .collapseKeyLimit, replacedBy: "k5", at: t0 + 1),
                .queued(messageID: "k5", at: t0 + 1),
            ])
        #expect(queue.waiting.map { Array($0.id.utf8) } == (keys.dropFirst() + ["k5"]).map { Array($0.utf8) })
    }

    @Test("a message whose time to live passed is expired on connect, never dispatched")
    func expiry() {
        var queue = offline()
        _ = queue.send(message("short", ttl: 1000), at: t0, rules: rules)
        _ = queue.send(message("long", ttl: 10_000), at: t0, rules: rules)
        let output = queue.connect(at: t0 + 5000, rules: rules)
        #expect(
            output.statuses == [
                .expired(messageID: "short", at: t0 + 5000), .dispatched(messageID: "long", at: t0 + 5000),
            ])
    }

    @Test("the default time to live is four weeks")
    func defaultTimeToLive() {
        var queue = offline()
        _ = queue.send(message("a"), at: t0, rules: rules)
        _ = queue.connect(at: t0 + 1, rules: rules)
        queue.disconnect(at: t0 + 2)
        _ = queue.send(message("b", at: t0 + 2), at: t0 + 2, rules: rules)
        let output = queue.connect(at: t0 + 2 + 28 * day, rules: rules)
        #expect(output.statuses == [.expired(messageID: "b", at: t0 + 2 + 28 * day)])
    }

    @Test("time to live 0 to an offline device expires at once; to an online one it is dispatched")
    func ttlZero() {
        var queue = offline()
        #expect(queue.send(message("a", ttl: 0), at: t0, rules: rules).statuses == [.expired(messageID: "a", at: t0)])
        _ = queue.connect(at: t0, rules: rules)
        #expect(
            queue.send(message("b", ttl: 0), at: t0, rules: rules).statuses == [.dispatched(messageID: "b", at: t0)])
    }

    @Test("a message whose expiration passed before its send time is expired for an online device too")
    func expiredBeforeSentToOnline() {
        var queue = offline()
        _ = queue.connect(at: t0, rules: rules)
        let output = queue.send(message("a", at: t0 + 5, ttl: -1), at: t0 + 5, rules: rules)
        #expect(output.statuses == [.expired(messageID: "a", at: t0 + 5)])
        #expect(output.inbox.isEmpty && output.changes.isEmpty && queue.unacknowledged.isEmpty)
    }

    @Test("collapse plus expiry: the replacing message's own time to live counts")
    func collapsePlusExpiry() {
        var queue = offline()
        _ = queue.send(message("old", key: "k", ttl: 100_000), at: t0, rules: rules)
        _ = queue.send(message("new", key: "k", at: t0 + 1, ttl: 10), at: t0 + 1, rules: rules)
        let output = queue.connect(at: t0 + 1000, rules: rules)
        #expect(output.statuses == [.expired(messageID: "new", at: t0 + 1000)])
        #expect(output.inbox.isEmpty)
    }

    @Test("a device connecting after 30 days without presence loses every waiting message")
    func inactivity() {
        var queue = offline()
        // Sent 20 days after the device was last seen: not expired when it connects at day 31.
        _ = queue.send(message("a", at: t0 + 20 * day), at: t0 + 20 * day, rules: rules)
        let connect = t0 + 31 * day
        let output = queue.connect(at: connect, rules: rules)
        #expect(
            output.statuses == [.deletedMessages(reason: .deviceInactive, count: 1, messageIDs: ["a"], at: connect)])
        #expect(output.inbox == [.deletedMessages(reason: .deviceInactive, count: 1)])
    }

    @Test("30 days exactly is not inactive; presence events keep a device active")
    func activeEnough() {
        var queue = offline()
        _ = queue.send(message("a", at: t0 + 20 * day), at: t0 + 20 * day, rules: rules)
        #expect(queue.connect(at: t0 + 30 * day, rules: rules).dispatchedIDs == ["a"])
        queue.disconnect(at: t0 + 30 * day)
        _ = queue.send(message("b", at: t0 + 59 * day), at: t0 + 59 * day, rules: rules)
        #expect(queue.connect(at: t0 + 59 * day, rules: rules).dispatchedIDs == ["b"])
    }

    @Test("inactivity plus overflow: one notice counting both discards, with the latest reason")
    func inactivityPlusOverflow() {
        var rules = self.rules
        rules.maxPending = 1
        var queue = offline()
        _ = queue.send(message("a"), at: t0, rules: rules)
        let overflow = queue.send(message("b"), at: t0, rules: rules)
        #expect(
            overflow.statuses == [.deletedMessages(reason: .tooManyPending, count: 2, messageIDs: ["a", "b"], at: t0)])
        _ = queue.send(message("c"), at: t0, rules: rules)
        let connect = t0 + 40 * day
        let output = queue.connect(at: connect, rules: rules)
        #expect(
            output.statuses == [.deletedMessages(reason: .deviceInactive, count: 1, messageIDs: ["c"], at: connect)])
        #expect(output.inbox == [.deletedMessages(reason: .deviceInactive, count: 3)])
    }

    @Test("on connect: inactivity first, so expired messages of an inactive device are deleted, not expired")
    func connectOrder() {
        var queue = offline()
        _ = queue.send(message("a", ttl: 1000), at: t0, rules: rules)
        let output = queue.connect(at: t0 + 31 * day, rules: rules)
        #expect(
            output.statuses == [
                .deletedMessages(reason: .deviceInactive, count: 1, messageIDs: ["a"], at: t0 + 31 * day)
            ])
    }

    @Test("an ack gives delivered for dispatched messages; an unknown id is ignored")
    func acks() {
        var queue = offline()
        _ = queue.connect(at: t0, rules: rules)
        _ = queue.send(message("a"), at: t0, rules: rules)
        let output = queue.acknowledge(["a", "unknown"], at: t0 + 1)
        #expect(output.statuses == [.delivered(messageID: "a", at: t0 + 1)])
        #expect(queue.acknowledge(["a"], at: t0 + 2).statuses.isEmpty)
    }

    @Test("a repeat of a waiting message (input processed again) is not queued twice")
    func repeatedSend() {
        var queue = offline()
        _ = queue.send(message("a"), at: t0, rules: rules)
        #expect(queue.send(message("a"), at: t0, rules: rules) == QueueOutput())
        #expect(queue.connect(at: t0 + 1, rules: rules).dispatchedIDs == ["a"])
    }

    @Test(
        "a repeat of any waiting message is not queued, however many wait; a removed one's id is new again",
        arguments: [1, 5, 40, 99])
    func repeatedSendAmongMany(waiting count: Int) {
        var queue = offline()
        let ids = (0..<count).map { "3:\(1_000 + $0):0" }
        for id in ids { _ = queue.send(message(id), at: t0, rules: rules) }
        for id in ids.reversed() { #expect(queue.send(message(id), at: t0, rules: rules) == QueueOutput()) }
        // One collapsed away: its id is no longer waiting, so sending it again queues it.
        _ = queue.send(message("k1", key: "k"), at: t0, rules: rules)
        _ = queue.send(message("k2", key: "k"), at: t0, rules: rules)
        #expect(
            queue.send(message("k1", key: "k"), at: t0, rules: rules).statuses.contains(
                .queued(messageID: "k1", at: t0)))
        #expect(queue.connect(at: t0 + 1, rules: rules).dispatchedIDs == ids + ["k1"])
    }
}

/// Times come from input records: no time may trap, however extreme.
@Suite("Device queue rules at extreme times")
struct ExtremeTimeTests {
    let rules = QueueRules()

    @Test(
        "a message sent near the end of time waits until the end of time, not until a time in the past",
        arguments: [
            Int64.max - 1, Int64.max - QueueRules().defaultTimeToLive + 1,
        ])
    func sentNearTheEnd(time: Int64) {
        var queue = DeviceQueue(firstSeenAt: time)
        let output = queue.send(
            QueuedMessage(id: "m", collapseKey: nil, sentAt: time, expiresAt: nil, apns: []), at: time, rules: rules)
        #expect(output.statuses == [.queued(messageID: "m", at: time)])
        #expect(queue.connect(at: time, rules: rules).statuses == [.dispatched(messageID: "m", at: time)])
    }

    @Test("a message sent at the last millisecond there is has expired already")
    func sentAtTheEnd() {
        var queue = DeviceQueue(firstSeenAt: t0)
        let output = queue.send(
            QueuedMessage(id: "m", collapseKey: nil, sentAt: .max, expiresAt: nil, apns: []), at: .max, rules: rules)
        #expect(output.statuses == [.expired(messageID: "m", at: .max)])
    }

    @Test(
        "a connect long before or after the last activity decides inactivity without overflow",
        arguments: [
            (Int64.min, Int64.max, true), (Int64.max, Int64.min, false), (Int64.min + 1, 0, true),
            (Int64.max, -1, false),
        ])
    func activityAtTheEnds(firstSeen: Int64, connect: Int64, inactive: Bool) {
        var queue = DeviceQueue(firstSeenAt: firstSeen)
        _ = queue.send(
            QueuedMessage(id: "m", collapseKey: nil, sentAt: firstSeen, expiresAt: Int64.max, apns: []), at: firstSeen,
            rules: rules)
        let output = queue.connect(at: connect, rules: rules)
        #expect(
            output.statuses.contains { if case .deletedMessages(.deviceInactive, _, _, _) = $0 { true } else { false } }
                == inactive)
    }
}

extension DeviceQueueTests {
    enum IdleSetUp: Sendable {
        case nothing, online, waiting, notice
    }

    @Test(
        "a device is idle, and may be forgotten, only with nothing waiting, no notice, and no presence for over the inactivity limit",
        arguments: [
            (IdleSetUp.nothing, t0 + 31 * day, true),
            (.nothing, t0 + 30 * day, false),
            (.online, t0 + 31 * day, true),
            (.waiting, t0 + 31 * day, false),
            (.notice, t0 + 31 * day, false),
            (.nothing, Int64.max, true),
            (.nothing, Int64.min, false),
        ])
    func idle(setUp: IdleSetUp, at time: Int64, idle: Bool) {
        var queue = offline()
        var rules = rules
        rules.maxPending = 1
        switch setUp {
        case .nothing: break
        case .online: _ = queue.connect(at: t0, rules: rules)
        case .waiting: _ = queue.send(message("a", ttl: 40 * day), at: t0, rules: rules)
        case .notice:
            _ = queue.send(message("a"), at: t0, rules: rules)
            _ = queue.send(message("b"), at: t0, rules: rules)
        }
        #expect(queue.isIdle(at: time, rules: rules) == idle)
    }

    @Test("forgetting settles every id awaiting an ack, then forgets; replaying it leaves a blank device")
    func forgetting() {
        var queue = offline()
        _ = queue.connect(at: t0, rules: rules)
        _ = queue.send(message("a"), at: t0, rules: rules)
        _ = queue.send(message("b"), at: t0, rules: rules)
        #expect(
            queue.forgettingChanges == [
                .acknowledgementSettled(messageID: "a"), .acknowledgementSettled(messageID: "b"), .forgotten,
            ])
        var replayed = queue
        for change in queue.forgettingChanges { replayed.apply(change) }
        #expect(replayed.unacknowledged.isEmpty && replayed.waiting.isEmpty && !replayed.isOnline)
    }
}
