import Testing

@testable import BridgeEndpoints

/// What `/proc` and cgroup files say, read as Prometheus' `process_*` metrics report it.
@Suite("The process's own metrics")
struct ProcessSampleTests {
    @Test(
        "statm's first two fields are virtual and resident pages; anything else reads as unknown",
        arguments: [
            ("2000 500 100 10 0 300 0\n", (Int64?(8_192_000), Int64?(2_048_000))),
            ("2000\n", (8_192_000, nil)),
            ("", (nil, nil)),
            ("x 500", (nil, 2_048_000)),
            ("9223372036854775807 1", (nil, 4096)),
        ] as [(String, (Int64?, Int64?))])
    func memory(statm: String, expected: (Int64?, Int64?)) {
        let (virtual, resident) = ProcessSample.memory(statm: statm, pageSize: 4096)
        #expect(virtual == expected.0 && resident == expected.1)
    }

    @Test("stat's CPU ticks and start ticks are counted from the last ')', whatever the name holds")
    func times() {
        // Fields after the name: state (3), then 4...13, utime (14) = 250, stime (15) = 50, ..., starttime (22) = 1000.
        let rest = "S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 8 0 1000 123456 789"
        for name in ["fcm-bridge", "a) (b ) c", ")"] {
            let (cpu, start) = ProcessSample.times(
                stat: "4242 (\(name)) \(rest)", bootTime: 1_700_000_000, ticksPerSecond: 100)
            #expect(cpu == 3.0, "\(name)")
            #expect(start == 1_700_000_010, "\(name)")
        }
        #expect(ProcessSample.times(stat: "4242 (x) S 1 2", bootTime: 1, ticksPerSecond: 100) == (nil, nil))
        #expect(ProcessSample.times(stat: "no parenthesis", bootTime: 1, ticksPerSecond: 100) == (nil, nil))
        #expect(ProcessSample.times(stat: "1 (x) \(rest)", bootTime: nil, ticksPerSecond: 100).start == nil)
    }

    @Test("the boot time is /proc/stat's btime line")
    func bootTime() {
        #expect(ProcessSample.bootTime("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n") == 1_700_000_000)
        #expect(ProcessSample.bootTime("cpu  1 2 3\n") == nil)
    }

    @Test(
        "a cgroup limit is a positive number short of v1's 'unlimited'; 'max' and garbage are none",
        arguments: [
            ("536870912\n", Int64?(536_870_912)), ("max\n", nil), ("9223372036854771712\n", nil), ("0", nil),
            ("-1", nil), ("", nil), ("12 MB", nil),
        ] as [(String, Int64?)])
    func memoryLimit(text: String, expected: Int64?) {
        #expect(ProcessSample.memoryLimit(text) == expected)
    }

    @Test(
        "the limit is looked for in the process's own cgroup first (v2, then v1), then at the mount's root",
        arguments: [
            (
                "0::/system.slice/fcm-bridge.service\n",
                ["/sys/fs/cgroup/system.slice/fcm-bridge.service/memory.max"]
            ),
            (
                "4:memory:/kubepods/pod1/c1\n1:cpu,cpuacct:/kubepods/pod1/c1\n0::/\n",
                ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/kubepods/pod1/c1/memory.limit_in_bytes"]
            ),
            ("3:cpuset,memory:/\n", ["/sys/fs/cgroup/memory/memory.limit_in_bytes"]),
            ("", []),
            ("garbage\n0::relative\n", []),
        ] as [(String, [String])])
    func memoryLimitFiles(cgroup: String, own: [String]) {
        #expect(
            ProcessSample.memoryLimitFiles(cgroup: cgroup)
                == own + ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"])
    }
}
