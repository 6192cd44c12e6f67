import Synchronization

/// Questions the operations endpoints ask about the device state the worker's loop owns: each
/// waits until the loop answers it between two turns (the state is the loop's alone), or until
/// its time runs out (the loop is restoring, or stuck).
public final class StateQueries: Sendable {
    /// What the loop says of a device.
    public enum Answer: Sendable, Equatable {
        /// The device's state partition is here, of `partitions`: these are its topics.
        case topics([String], partition: Int32, partitions: Int32)
        /// The device's state partition is not held here.
        case elsewhere(partition: Int32, partitions: Int32)
        /// The loop did not answer in time.
        case unanswered
    }

    private struct Question {
        var token: String
        var continuation: CheckedContinuation<Answer, Never>
    }

    private struct Questions {
        var next: UInt64 = 0
        var waiting: [UInt64: Question] = [:]
        /// Questions whose time ran out before they were asked.
        var expired: Set<UInt64> = []
    }

    private let questions = Mutex(Questions())

    public init() {}

    /// The loop's answer about `token`, or ``Answer/unanswered`` after `timeout`.
    public func topics(of token: String, timeout: Duration) async -> Answer {
        let id = questions.withLock { questions in
            defer { questions.next &+= 1 }
            return questions.next
        }
        return await withTaskGroup(of: Answer?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let answerNow = self.questions.withLock { questions in
                        guard questions.expired.remove(id) == nil else { return true }
                        questions.waiting[id] = Question(token: token, continuation: continuation)
                        return false
                    }
                    if answerNow { continuation.resume(returning: .unanswered) }
                }
            }
            group.addTask {
                // Cancelled once answered: then there is nothing to expire.
                guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
                self.expire(id)
                return nil
            }
            var answer = Answer.unanswered
            for await result in group {
                if let result {
                    answer = result
                    group.cancelAll()
                }
            }
            return answer
        }
    }

    private func expire(_ id: UInt64) {
        let question = questions.withLock { questions in
            guard let question = questions.waiting.removeValue(forKey: id) else {
                questions.expired.insert(id)
                return Optional<Question>.none
            }
            return question
        }
        question?.continuation.resume(returning: .unanswered)
    }

    /// Answers every waiting question with `answer` (the loop calls it between turns; cheap when
    /// none waits).
    public func answerWaiting(_ answer: (String) -> Answer) {
        let waiting = questions.withLock { questions in
            defer { questions.waiting.removeAll(keepingCapacity: true) }
            return questions.waiting.values
        }
        for question in waiting {
            question.continuation.resume(returning: answer(question.token))
        }
    }
}
