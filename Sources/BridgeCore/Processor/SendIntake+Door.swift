import FCMTranslation

extension SendIntake {
    /// Why the workers would reject `request` as a send record, or nil when they would accept it:
    /// checked as the last record of the last partition, whose message ids are the longest, so a
    /// request this accepts fits at any position. For an HTTP front door that answers at once.
    public func rejection(of request: SendRequest, time: Int64) -> Rejection? {
        let result = admit(.success(request), partition: Int32.max, offset: Int64.max, time: time)
        return result.deadLetter ?? result.firstRejection
    }
}
