import FCMBridgeClient
import Testing

@testable import BridgeDemo

@Suite("The demo's scoreboard")
struct DemoScoreboardTests {
    private func status(_ json: String) throws -> DemoEvent {
        .status(try StatusEvent.decode(Array(json.utf8)))
    }

    @Test("every request is accounted for once each message has one final status and nothing waits")
    func accounting() throws {
        var board = DemoScoreboard()
        board.record(.sent(requests: 3, outcomes: 4))
        for json in [
            #"{"type":"queued","message_id":"m1","token":"d","at":1}"#,
            #"{"type":"queued","message_id":"m2","token":"d","at":1}"#,
            #"{"type":"dispatched","message_id":"m3","token":"e","at":1}"#,
        ] { board.record(try status(json)) }
        #expect(board.outcomes == 1)
        #expect(board.waiting == ["m1", "m2"])
        #expect(!board.accountedFor)

        board.record(
            try status(
                #"{"type":"deleted_messages","token":"d","at":2,"reason":"too_many_pending","count":2,"message_ids":["m1","m2"]}"#
            ))
        #expect(board.waiting.isEmpty)
        #expect(board.outcomes == 3)
        #expect(!board.accountedFor)

        board.record(
            try status(#"{"type":"rejected","token":"f","at":2,"reason":"invalid_data_key","detail":"data.from"}"#))
        #expect(board.accountedFor)
        #expect(board.statuses == [.queued: 2, .dispatched: 1, .deletedMessages: 1, .rejected: 1])
        #expect(board.notable.count == 2)

        // A repeated final status is a repeat, not another message.
        board.record(try status(#"{"type":"dispatched","message_id":"m3","token":"e","at":1}"#))
        #expect(board.outcomes == 4)
        #expect(board.repeats == 1)
        #expect(!board.accountedFor)
    }

    @Test("a topic send is accounted for once its fanned_out has come and each device it counts has a final status")
    func fanOut() throws {
        var board = DemoScoreboard()
        board.record(.sent(requests: 2, outcomes: 1, fanOuts: 1))
        board.record(try status(#"{"type":"dispatched","message_id":"1:2:0","token":"d","at":1}"#))
        board.record(try status(#"{"type":"dispatched","message_id":"1:3:0/00000000000000aa","token":"d","at":1}"#))
        #expect(!board.accountedFor, "the fanned_out has not come")
        board.record(
            try status(#"{"type":"fanned_out","message_id":"1:3:0","topic":"news","count":2,"at":1}"#))
        #expect(board.devicesReached == 2 && board.pendingFanOuts == 0)
        #expect(!board.accountedFor, "one device's copy has no final status")
        board.record(try status(#"{"type":"queued","message_id":"1:3:0/00000000000000bb","token":"e","at":1}"#))
        board.record(try status(#"{"type":"expired","message_id":"1:3:0/00000000000000bb","token":"e","at":2}"#))
        #expect(board.accountedFor)
    }

    @Test("one message finished twice does not make up for one never finished")
    func repeatIsNotAnotherMessage() throws {
        var board = DemoScoreboard()
        board.record(.sent(requests: 2, outcomes: 2))
        board.record(try status(#"{"type":"dispatched","message_id":"m1","token":"d","at":1}"#))
        board.record(try status(#"{"type":"dispatched","message_id":"m1","token":"d","at":1}"#))
        #expect(board.outcomes == 1)
        #expect(!board.accountedFor)
    }

    @Test("at least once: repeats of a whole history are allowed and wait for nothing")
    func atLeastOnce() throws {
        var board = DemoScoreboard(allowsRepeats: true)
        board.record(.sent(requests: 1, outcomes: 1))
        for _ in 0..<2 {
            board.record(try status(#"{"type":"queued","message_id":"m1","token":"d","at":1}"#))
            board.record(try status(#"{"type":"dispatched","message_id":"m1","token":"d","at":2}"#))
        }
        #expect(board.repeats == 1)
        #expect(board.waiting.isEmpty)
        #expect(board.accountedFor)
    }

    @Test("without checking each message, final statuses are only counted")
    func countingOnly() throws {
        var board = DemoScoreboard(checksEachMessage: false)
        board.record(.sent(requests: 1, outcomes: 1))
        board.record(try status(#"{"type":"dispatched","message_id":"m1","token":"d","at":1}"#))
        board.record(try status(#"{"type":"dispatched","message_id":"m1","token":"d","at":1}"#))
        #expect(board.outcomes == 2)
        #expect(board.repeats == 0)
    }

    @Test(
        "a queued message that is dispatched, collapsed or expired no longer waits",
        arguments: ["dispatched", "collapsed", "expired"])
    func leavesWaiting(type: String) throws {
        var board = DemoScoreboard()
        board.record(.sent(requests: 1, outcomes: 1))
        board.record(try status(#"{"type":"queued","message_id":"m1","token":"d","at":1}"#))
        board.record(try status(#"{"type":"\#(type)","message_id":"m1","token":"d","at":2}"#))
        #expect(board.waiting.isEmpty)
        #expect(board.accountedFor)
    }

    @Test("inbox records: messages counted, each deleted_messages notice a full sync; the newest 3 notable events kept")
    func inbox() {
        var board = DemoScoreboard()
        board.record(.inbox(InboxRecord(kind: "message", token: "d", messageID: "m1")))
        for count in 1...4 {
            board.record(
                .inbox(InboxRecord(kind: "deleted_messages", token: "d", reason: "too_many_pending", count: count)))
        }
        board.record(.acknowledged(count: 7))
        board.record(.online(12))
        #expect(board.inboxMessages == 1)
        #expect(board.fullSyncs == 4)
        #expect(board.acknowledged == 7)
        #expect(board.online == 12)
        #expect(board.notable.count == 3)
        #expect(board.notable.last?.contains("4 messages") == true)
    }

    @Test("clock and verdict", arguments: [(0, "00:00"), (75, "01:15"), (3600, "60:00")])
    func clock(seconds: Int, expected: String) {
        #expect(DemoSummary.clock(.seconds(seconds)) == expected)
    }

    @Test("the verdict names the figures")
    func verdict() {
        var board = DemoScoreboard()
        board.record(.sent(requests: 2, outcomes: 2))
        #expect(
            DemoSummary.verdict(board, elapsed: .seconds(5))
                == [
                    "demo finished after 00:05: NOT every outcome accounted for (0 of 2 final statuses for 2 requests, 0 waiting, 0 repeated)"
                ])
        #expect(
            DemoSummary.verdict(DemoScoreboard(), elapsed: .seconds(5))
                == [
                    "demo finished after 00:05: every outcome accounted for (0 of 0 final statuses for 0 requests, 0 waiting, 0 repeated)"
                ])
        board.record(.stopRequested)
        #expect(
            DemoSummary.verdict(board, elapsed: .seconds(65))
                == ["demo stopped after 01:05 (0 of 2 final statuses for 2 requests, 0 waiting, 0 repeated)"])
    }
}
