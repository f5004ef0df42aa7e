import Foundation
import ProcessTestSupport
import PropertyBased
import Testing

/// Joining is a function of the set of parts, not of the order they are named in.
@Suite("Parts properties")
struct PartsPropertyTests {
    @Test("any order of every part joins into the one-machine PNG; any order missing one is refused, writing nothing")
    func anyOrder() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = ["--size", "210x140", "--center", "-0.74,0.12", "--zoom", "3", "--iterations", "200"]
        try PartsTests.render(picture + ["--strategy", "serial", "-o", "one.png"], in: folder)
        let expected = try PartsTests.file(folder, "one.png")
        let count = 7
        for index in 0..<count {
            try PartsTests.render(
                picture + PartsTests.makers[index] + ["--part", "\(index)/\(count)", "-o", "p\(index)"], in: folder)
        }
        await propertyCheck(count: 24, input: Gen<[Int]>.shuffled(Array(0..<count)), Gen.int(in: 0...(count - 1))) {
            order, dropped in
            let names = order.map { "p\($0)" }
            let joined = try MandelProcess.run(["join"] + names + ["-o", "all.png"], in: folder)
            #expect(joined.status == 0, "\(names): \(joined.standardError)")
            #expect(try PartsTests.file(folder, "all.png") == expected, "joined in the order \(names)")
            let short = names.filter { $0 != "p\(dropped)" }
            let refused = try MandelProcess.run(["join"] + short + ["-o", "short.png"], in: folder)
            #expect(refused.status == 65, "\(short): \(refused.standardError)")
            #expect(
                refused.firstErrorLine.contains("part \(dropped) of \(count) is missing"), "\(refused.standardError)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/short.png"))
        }
    }
}
