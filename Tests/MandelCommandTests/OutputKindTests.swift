import Foundation
import ProcessTestSupport
import Testing

/// `-o` naming what cannot be a picture file, each kind of path once: a socket, a block device, a
/// loop of links, a path through a file, a folder that does not exist. Each is refused before
/// the render with one line naming the path and what it is, exit 73 (cannot create), and what
/// was there is left as it was. (A folder, a FIFO and a character device as outputs are
/// BadInputTests'; a part named as input, PartKindTests'.)
@Suite("-o naming what cannot be a picture file")
struct OutputKindTests {
    @Test(
        "a socket, a block device, a loop of links, a path through a file, a missing folder: 73, one line, nothing changed"
    )
    func refusedKinds() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socket = try UnixSocket(path: folder + "/socket")
        defer { socket.close() }
        // A block device's node made here (root may; any loop device's numbers, never opened).
        #expect(mknod(folder + "/block", S_IFBLK | 0o600, makedev(7, 0)) == 0, "mknod: \(errno)")
        #expect(symlink("loop-b", folder + "/loop-a") == 0 && symlink("loop-a", folder + "/loop-b") == 0)
        #expect(FileManager.default.createFile(atPath: folder + "/plain.png", contents: Data([1, 2, 3])))
        let before = contents(of: folder)
        for (output, reason) in [
            ("socket", "cannot create 'socket': it is a socket or another special file; give a file name"),
            ("block", "cannot create 'block': it is a block device; give a file name"),
            ("loop-a", "cannot create 'loop-a': too many levels of symbolic links"),
            ("plain.png/x.png", "cannot create 'plain.png/x.png': 'plain.png' is not a folder"),
            ("absent/x.png", "cannot create 'absent/x.png': the folder 'absent' does not exist"),
        ] {
            let result = try MandelProcess.run(["render", "--size", "16", "-o", output], in: folder)
            expectRefusal(result, status: 73, mentioning: reason)
            #expect(result.standardError.split(separator: "\n").count == 1, "\(output): \(result.standardError)")
            #expect(contents(of: folder) == before, "\(output): left \(contents(of: folder))")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/plain.png")) == Data([1, 2, 3]))
    }
}

extension OutputKindTests {
    /// The one output put in place before the run's end: the preview stays, whole, when the picture
    /// then cannot be written, and the failure's line says which file is there.
    @Test("the preview stays when the picture then fails on a full disk, and the line names it")
    func previewStaysAfterFailure() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "64x48", "--preview", "4", "--preview-output", "p.png", "-o", "/dev/full"], in: folder)
        expectRefusal(
            result, status: 74,
            mentioning:
                "could not write '/dev/full': no space left on the device; only p.png was written (put in place when "
                + "it was ready)")
        #expect(contents(of: folder) == ["p.png"], "left \(contents(of: folder))")
        let preview = try Data(contentsOf: URL(fileURLWithPath: folder + "/p.png"))
        #expect(preview.starts(with: [0x89, 0x50, 0x4E, 0x47]) && preview.count > 60, "\(preview.count) bytes")
    }
}

func makedev(_ major: UInt32, _ minor: UInt32) -> dev_t {
    dev_t(major & 0xfff) << 8 | dev_t(minor & 0xff) | dev_t(minor & ~0xff) << 12 | dev_t(major & ~0xfff) << 32
}
