import Synchronization

/// Questions the operations endpoints ask about the device state the worker's loop owns: each
/// waits until the loop answers it between two turns (the state is the loop's alone), or until
/// its time runs out or its asker is cancelled (the loop is restoring, stuck, or stopping).
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

    /// Where one question is: every id is open from its asking until it is resolved, once.
    private enum Slot {
        case waiting(token: String, continuation: CheckedContinuation<Answer, Never>)
        /// Out of time before it was registered: resolved as soon as it is.
        case expired
    }

    private struct Questions {
        var next: UInt64 = 0
        var open: Set<UInt64> = []
        var slots: [UInt64: Slot] = [:]
    }

    private let questions = Mutex(Questions())

    public init() {}

    /// The loop's answer about `token`, or ``Answer/unanswered`` after `timeout` or when the
    /// asking task is cancelled.
    public func topics(of token: String, timeout: Duration) async -> Answer {
        let id = questions.withLock { questions in
            defer { questions.next &+= 1 }
            questions.open.insert(questions.next)
            return questions.next
        }
        return await withTaskCancellationHandler {
            await withTaskGroup(of: Answer?.self) { group in
                group.addTask { await withCheckedContinuation { self.register(id, token: token, $0) } }
                group.addTask {
                    // Cancelled once answered: then there is nothing to expire.
                    guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
                    self.expire(id)
                    return nil
                }
                var answer = Answer.unanswered
                for await case let result? in group {
                    answer = result
                    group.cancelAll()
                }
                return answer
            }
        } onCancel: {
            expire(id)
        }
    }

    private func register(_ id: UInt64, token: String, _ continuation: CheckedContinuation<Answer, Never>) {
        let expired = questions.withLock { questions in
            guard case .expired? = questions.slots[id] else {
                questions.slots[id] = .waiting(token: token, continuation: continuation)
                return false
            }
            questions.slots[id] = nil
            questions.open.remove(id)
            return true
        }
        if expired { continuation.resume(returning: .unanswered) }
    }

    /// Resolves `id` as unanswered, unless it is resolved already.
    private func expire(_ id: UInt64) {
        let continuation = questions.withLock { questions -> CheckedContinuation<Answer, Never>? in
            guard questions.open.contains(id) else { return nil }
            guard case .waiting(_, let continuation)? = questions.slots[id] else {
                questions.slots[id] = .expired
                return nil
            }
            questions.slots[id] = nil
            questions.open.remove(id)
            return continuation
        }
        continuation?.resume(returning: .unanswered)
    }

    /// Answers every waiting question with `answer` (the loop calls it between turns; cheap when
    /// none waits).
    public func answerWaiting(_ answer: (String) -> Answer) {
        let waiting = questions.withLock { questions -> [(String, CheckedContinuation<Answer, Never>)] in
            guard !questions.slots.isEmpty else { return [] }
            var waiting: [(String, CheckedContinuation<Answer, Never>)] = []
            for (id, slot) in questions.slots {
                guard case .waiting(let token, let continuation) = slot else { continue }
                waiting.append((token, continuation))
                questions.slots[id] = nil
                questions.open.remove(id)
            }
            return waiting
        }
        for (token, continuation) in waiting {
            continuation.resume(returning: answer(token))
        }
    }
}
