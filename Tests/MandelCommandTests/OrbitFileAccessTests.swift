import Foundation
import ProcessTestSupport
import Testing

/// `--orbit FILE` that cannot be opened: the system's reason, exit 66, nothing written. (What a
/// file holds is ZoomOrbitTests'; these are the ways to a file that fail before a byte is read.)
@Suite("--orbit: a file that cannot be opened")
struct OrbitFileAccessTests {
    static let view = [
        "render", "--center", "1e-400,0", "--zoom", "1e300", "--size", "16", "--iterations", "200", "--period", "off",
    ]

    @Test("a file this user may not read, and a path through a file: the system's reason, 66, nothing written")
    func cannotOpen() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let written = try MandelProcess.run(Self.view + ["--orbit-out", "o.orbit", "-o", "first.png"], in: folder)
        #expect(written.status == 0, "\(written.standardError)")
        try FileManager.default.removeItem(atPath: folder + "/first.png")
        chmod(folder + "/o.orbit", 0o000)
        // Root reads any file: the refusal needs another user, whom the mode binds.
        let unreadable = try MandelProcess.run(
            Self.view + ["--orbit", "o.orbit", "-o", "p.png"], in: folder, launch: .init(asNobody: true))
        expectRefusal(unreadable, status: 66, mentioning: "--orbit 'o.orbit': Permission denied")
        let throughAFile = try MandelProcess.run(Self.view + ["--orbit", "o.orbit/x", "-o", "p.png"], in: folder)
        expectRefusal(throughAFile, status: 66, mentioning: "--orbit 'o.orbit/x': Not a directory")
        #expect(contents(of: folder) == ["o.orbit"], "left \(contents(of: folder))")
    }

    /// The orbit file is written after the render, from the orbit the render took: where it cannot be
    /// written, the picture (and every other output) is not published either, as for any output.
    @Test("--orbit-out on a full disk: 74 after the render, and the picture is not published either")
    func fullDisk() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            Self.view + ["--orbit-out", "/dev/full", "-o", "p.png", "--counts", "c.npy"], in: folder)
        #expect(result.status == 74, "\(result.standardError)")
        let last = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last == "mandel: could not write '/dev/full': no space left on the device", "\(result.standardError)")
        #expect(contents(of: folder).isEmpty, "left \(contents(of: folder))")
    }
}
