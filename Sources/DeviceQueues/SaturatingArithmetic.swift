/// Arithmetic on times that come from input records: it saturates at the ends of `Int64`
/// instead of trapping, so that no record can stop a worker however extreme its timestamp.
extension Int64 {
    /// `self + other`, or the nearest end of `Int64` when that overflows.
    public func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, or the nearest end of `Int64` when that overflows.
    public func saturatingSubtract(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
