import BridgeHealth
import Testing

@Suite struct StateQueriesTests {
    @Test func aQuestionGetsTheLoopsAnswer() async {
        let queries = StateQueries()
        async let answer = queries.topics(of: "device-1", timeout: .seconds(30))
        // The loop turns until the question has arrived and is answered.
        var answered = false
        for _ in 0..<100_000 where !answered {
            queries.answerWaiting { token in
                answered = true
                return .topics([token, "news"], partition: 3, partitions: 8)
            }
            await Task.yield()
        }
        #expect(answered)
        #expect(await answer == .topics(["device-1", "news"], partition: 3, partitions: 8))
    }

    @Test func aQuestionTheLoopDoesNotTakeRunsOut() async {
        let queries = StateQueries()
        #expect(await queries.topics(of: "device-1", timeout: .milliseconds(50)) == .unanswered)
        // Once out of time, it is not answered again.
        var asked: [String] = []
        queries.answerWaiting { token in
            asked.append(token)
            return .elsewhere(partition: 0, partitions: 1)
        }
        #expect(asked.isEmpty)
    }
}

@Suite struct StateQueriesCancellationTests {
    @Test func aCancelledQuestionIsUnansweredAtOnceAndNotAskedAgain() async {
        let queries = StateQueries()
        let asking = Task { await queries.topics(of: "device-1", timeout: .seconds(3600)) }
        try? await Task.sleep(for: .milliseconds(20))
        asking.cancel()
        #expect(await asking.value == .unanswered)
        var asked = 0
        queries.answerWaiting { _ in
            asked += 1
            return .elsewhere(partition: 0, partitions: 1)
        }
        #expect(asked == 0)
    }
}
