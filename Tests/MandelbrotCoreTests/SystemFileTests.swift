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
    }
}
