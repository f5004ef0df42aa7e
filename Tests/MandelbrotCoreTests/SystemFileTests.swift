import Platform
import Testing

@Suite("SystemFile")
struct SystemFileTests {
    @Test("a field is found whether its key is padded with tabs (/proc/cpuinfo) or not (/proc/self/status)")
    func fields() {
        let cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC 9R14\nflags\t\t: fpu vme\n"
        #expect(SystemFile.field("model name", in: cpuinfo) == "AMD EPYC 9R14")
        #expect(SystemFile.field("flags", in: cpuinfo) == "fpu vme")
        let status = "Name:\tmandel\nThreads:\t9\nVmRSS:\t   23448 kB\n"
        #expect(SystemFile.field("Threads", in: status) == "9")
        #expect(SystemFile.field("VmRSS", in: status) == "23448 kB")
        // A key is a whole key, not the start of a longer one.
        #expect(SystemFile.field("Vm", in: status) == nil)
        #expect(SystemFile.field("Uid", in: status) == nil)
        // The first line with the key and a colon, past lines that start with it and are longer keys;
        // the last line without its newline; an empty value.
        let meminfo = "MemTotal:  100 kB\nMemAvailableSoon: 1 kB\nMemAvailable:   64 kB\nSwapFree: 0 kB\nEmpty:"
        #expect(SystemFile.field("MemAvailable", in: meminfo) == "64 kB")
        #expect(SystemFile.field("SwapFree", in: meminfo) == "0 kB")
        #expect(SystemFile.field("Empty", in: meminfo) == "")
        #expect(SystemFile.field("MemTotal", in: "") == nil)
    }

    @Test("a part's processor time leaves the rest split as the whole is, never a negative user or system time")
    func processorTimeWithoutAPart() {
        // The process's usage over a window, and the writer thread's inside it, as Linux
        // reported them with --heartbeat 0.1: each split by its own tick samples.
        let process = CPUTime(user: 0.010, system: 0.030)
        let writer = CPUTime(user: 0.014, system: 0.002)
        let render = process.excluding(writer)
        #expect(abs(render.total - 0.024) < 1e-12)
        #expect(abs(render.user - 0.006) < 1e-12 && abs(render.system - 0.018) < 1e-12, "\(render)")
        #expect(CPUTime.zero.excluding(.zero) == .zero)
    }

    /// `ProcessStat` counts the fields of `/proc/self/stat`; `/proc/self/status` names the same
    /// numbers. A field miscounted reads another number: `vsize` (bytes, field 23) for `rss`
    /// (pages, 24) made the resident memory of compare's JSON and serve's /events thousands of
    /// times too large, and the only bound, "above 1 MiB", held.
    @Test("ProcessStat's threads and resident memory are the ones /proc/self/status names")
    func processStatFields() throws {
        let stat = try #require(ProcessStat())
        // Other tests run beside this one: the numbers move between readings. Taken in turn, the
        // middle reading lies near the two around it. The two files do not sum the kernel's
        // per-processor counts alike: under AddressSanitizer (1.1 GiB resident) /proc/self/stat
        // read 7% above /proc/self/status, steadily. A field miscounted is off by thousands of
        // times or is 0, so the bound is a fifth either way, and 16 MiB.
        for _ in 0..<5 {
            let before = ProcessSnapshot.now()
            let middle = try #require(stat.read())
            let after = ProcessSnapshot.now()
            let (low, high) = (
                min(before.residentBytes, after.residentBytes), max(before.residentBytes, after.residentBytes)
            )
            #expect(low > 1 << 20)
            let slack = max(16 << 20, high / 5)
            #expect(
                middle.residentBytes >= low - slack && middle.residentBytes <= high + slack,
                "resident \(middle.residentBytes) bytes; /proc/self/status said \(before.residentBytes), \(after.residentBytes)"
            )
            let (fewest, most) = (min(before.threads, after.threads), max(before.threads, after.threads))
            #expect(
                middle.threads >= max(1, fewest - 8) && middle.threads <= most + 8,
                "\(middle.threads) threads; /proc/self/status said \(before.threads), \(after.threads)")
        }
    }
}
