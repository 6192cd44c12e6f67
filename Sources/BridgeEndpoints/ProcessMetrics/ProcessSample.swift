import Foundation

/// What Linux's `/proc` and cgroup files say of this process: memory, CPU time, start time and
/// file descriptors, as Prometheus' `process_*` metrics report them. Parsing is pure, so that
/// it is tested on any text; a value a file does not give is nil.
struct ProcessSample: Sendable, Hashable {
    var residentBytes: Int64?
    var virtualBytes: Int64?
    var cpuSeconds: Double?
    var startTimeSeconds: Double?
    var openFileDescriptors: Int64?

    /// Reads this process's sample from `/proc`, with the machine's `bootTime`
    /// (``currentBootTime()``) for the start time.
    static func current(bootTime: Double?) -> ProcessSample {
        var sample = ProcessSample()
        let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            (sample.virtualBytes, sample.residentBytes) = memory(statm: statm, pageSize: pageSize)
        }
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8) {
            (sample.cpuSeconds, sample.startTimeSeconds) = times(
                stat: stat, bootTime: bootTime, ticksPerSecond: ticksPerSecond)
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            sample.openFileDescriptors = Int64(descriptors.count)
        }
        return sample
    }

    /// Virtual and resident bytes from `/proc/self/statm` (sizes in pages).
    static func memory(statm: String, pageSize: Int64) -> (virtual: Int64?, resident: Int64?) {
        let fields = statm.split(separator: " ", omittingEmptySubsequences: true).prefix(2).map {
            Int64($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        func bytes(_ index: Int) -> Int64? {
            guard index < fields.count, let pages = fields[index] else { return nil }
            let (product, overflow) = pages.multipliedReportingOverflow(by: pageSize)
            return overflow ? nil : product
        }
        return (bytes(0), bytes(1))
    }

    /// CPU seconds (user and system) and the start time in seconds since the epoch, from
    /// `/proc/self/stat`, whose second field (the command's name, in parentheses) may hold
    /// spaces and parentheses: fields are counted from the last `)`.
    static func times(stat: String, bootTime: Double?, ticksPerSecond: Double) -> (cpu: Double?, start: Double?) {
        guard ticksPerSecond > 0, let close = stat.lastIndex(of: ")") else { return (nil, nil) }
        // After ")": state is field 3, utime 14, stime 15, starttime 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        func field(_ number: Int) -> Double? {
            let index = number - 3
            guard index < fields.count, let ticks = UInt64(fields[index]) else { return nil }
            return Double(ticks) / ticksPerSecond
        }
        let cpu = field(14).flatMap { user in field(15).map { user + $0 } }
        let start = field(22).flatMap { since in bootTime.map { $0 + since } }
        return (cpu, start)
    }

    /// The machine's boot time in seconds since the epoch, read once: it does not change.
    static func currentBootTime() -> Double? {
        (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)).flatMap(bootTime)
    }

    /// The boot time in seconds since the epoch: `/proc/stat`'s `btime` line.
    static func bootTime(_ stat: String) -> Double? {
        stat.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap {
            Double($0.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
    }

    /// The memory limit of the cgroup a process runs in, from cgroup v2's `memory.max` or v1's
    /// `memory.limit_in_bytes`; nil when there is none (`max`, or v1's "unlimited", a value
    /// near 2^63).
    static func memoryLimit(_ text: String) -> Int64? {
        guard let limit = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0,
            limit < 1 << 60
        else { return nil }
        return limit
    }

    /// Where a process's cgroup memory limit may be, most specific first, from its
    /// `/proc/self/cgroup`: its own cgroup's under cgroup v2 (`0::/path`) and v1
    /// (`N:memory:/path`), then the mount's root, which is the container's own in a cgroup
    /// namespace.
    static func memoryLimitFiles(cgroup text: String) -> [String] {
        var files: [String] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2].hasPrefix("/") else { continue }
            let path = parts[2] == "/" ? "" : String(parts[2])
            if parts[0] == "0" && parts[1].isEmpty {
                files.insert("/sys/fs/cgroup\(path)/memory.max", at: 0)
            } else if parts[1].split(separator: ",").contains("memory") {
                files.append("/sys/fs/cgroup/memory\(path)/memory.limit_in_bytes")
            }
        }
        return files + ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
    }

    /// This process's cgroup memory limit, nil when it has none: read from the first of
    /// ``memoryLimitFiles(cgroup:)`` that exists.
    static func currentMemoryLimit() -> Int64? {
        let cgroup = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        for path in memoryLimitFiles(cgroup: cgroup) {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return memoryLimit(text) }
        }
        return nil
    }
}
