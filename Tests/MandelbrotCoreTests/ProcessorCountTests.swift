import Platform
import Testing

/// The processors a process may use: the online count, less what its affinity mask and its cgroup's
/// CPU quota leave, from texts laid out as the kernel writes them.
@Suite("Processor count")
struct ProcessorCountTests {
    static func status(_ mask: String) -> String { "Name:\tmandel\nCpus_allowed:\t\(mask)\nCpus_allowed_list:\t0-1\n" }

    @Test("the affinity mask: its bits, across the comma-separated words, never more than online")
    func affinity() {
        #expect(ProcessorCount.count(online: 16, status: Self.status("ffff"), cpuMax: nil) == 16)
        #expect(ProcessorCount.count(online: 16, status: Self.status("0005"), cpuMax: nil) == 2)
        #expect(ProcessorCount.count(online: 64, status: Self.status("00000000,00000100,00000003"), cpuMax: nil) == 3)
        // More bits than processors online (a mask of every possible processor): online wins.
        #expect(ProcessorCount.count(online: 4, status: Self.status("ffffffff"), cpuMax: nil) == 4)
        // No mask line, or an empty mask: online.
        #expect(ProcessorCount.count(online: 8, status: "Name:\tmandel\n", cpuMax: nil) == 8)
        #expect(ProcessorCount.count(online: 8, status: Self.status("0"), cpuMax: nil) == 8)
    }

    @Test("cgroup v2's cpu.max: the quota over the period, rounded up, at least 1; 'max' is no limit")
    func quota() {
        let all = Self.status("ff")
        #expect(ProcessorCount.count(online: 8, status: all, cpuMax: "max 100000\n") == 8)
        #expect(ProcessorCount.count(online: 8, status: all, cpuMax: "200000 100000\n") == 2)
        #expect(ProcessorCount.count(online: 8, status: all, cpuMax: "150000 100000\n") == 2)
        #expect(ProcessorCount.count(online: 8, status: all, cpuMax: "10000 100000\n") == 1)
        #expect(ProcessorCount.count(online: 8, status: all, cpuMax: "50000 20000\n") == 3)
        // A quota above the processors: the mask's count stands.
        #expect(ProcessorCount.count(online: 8, status: Self.status("0f"), cpuMax: "1600000 100000\n") == 4)
        // What does not read as two numbers, or a period of 0, is no limit.
        #expect(ProcessorCount.count(online: 8, status: all, cpuMax: "100000\n") == 8)
        #expect(ProcessorCount.count(online: 8, status: all, cpuMax: "100000 0\n") == 8)
    }

    @Test("this process: at least 1, at most the online count")
    func thisProcess() {
        #expect((1...max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))).contains(ProcessorCount.available))
    }
}
