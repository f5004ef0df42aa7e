import Foundation
import ProcessTestSupport
import Testing

/// What a part's path can name besides a regular file: each is refused at once with its kind
/// (exit 66), never opened in a way that waits (issue 44, item 3: a FIFO with no writer hung
/// the join for ever, for the open came before the check of the kind).
@Suite("Parts and a join: what a part's path names")
struct PartKindTests {
    @Test(
        "a FIFO with no writer, a link to one, a folder, a character or block device, a socket: refused within seconds",
        arguments: [
            ("fifo", "it is a FIFO"), ("link-to-fifo", "it is a FIFO"), ("folder", "it is a folder"),
            ("/dev/zero", "it is a character device"), ("/dev/null", "it is a character device"),
            ("socket", "it is a socket"), ("block", "it is a block device"),
        ])
    func kinds(name: String, kind: String) throws {
        let folder = try PartRefusalTests.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link-to-fifo", withDestinationPath: "fifo")
        try FileManager.default.createDirectory(atPath: folder + "/folder", withIntermediateDirectories: false)
        let socket = try UnixSocket(path: folder + "/socket")
        defer { socket.close() }
        // A block device's node made here (root may; a loop device's numbers, never opened).
        #expect(mknod(folder + "/block", S_IFBLK | 0o600, makedev(7, 0)) == 0, "mknod: \(errno)")
        let before = contents(of: folder)
        // Given first or last: the join must not have opened the parts before it.
        for files in [[name, "p0", "p1", "p2"], ["p0", "p1", "p2", name]] {
            let result = try MandelProcess.run(["join"] + files + ["-o", "out.png"], in: folder, deadline: 20)
            expectRefusal(
                result, status: 66, mentioning: "cannot read '\(name)': \(kind); a part must be a regular file")
            #expect(contents(of: folder) == before, "left \(contents(of: folder))")
        }
    }
}

/// What `--orbit FILE` can name besides a regular file, as for a part: refused at once with its kind
/// (exit 66), never opened in a way that waits, no picture written.
@Suite("--orbit: what its path names")
struct OrbitKindTests {
    @Test(
        "a FIFO with no writer, a folder, a character or block device, a socket: refused within seconds",
        arguments: [
            ("fifo", "it is a FIFO"), ("folder", "it is a folder"), ("/dev/zero", "it is a character device"),
            ("socket", "it is a socket"), ("block", "it is a block device"),
        ])
    func kinds(name: String, kind: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: folder + "/folder", withIntermediateDirectories: false)
        let socket = try UnixSocket(path: folder + "/socket")
        defer { socket.close() }
        #expect(mknod(folder + "/block", S_IFBLK | 0o600, makedev(7, 0)) == 0, "mknod: \(errno)")
        let before = contents(of: folder)
        let result = try MandelProcess.run(
            ["render", "--size", "64", "--center", "-0.75,0.1", "--zoom", "1e20", "--orbit", name, "-o", "o.png"],
            in: folder, deadline: 20)
        expectRefusal(
            result, status: 66, mentioning: "--orbit '\(name)': \(kind); an orbit file must be a regular file")
        #expect(contents(of: folder) == before, "left \(contents(of: folder))")
    }
}

/// A listening Unix socket at a path, for as long as the test holds it.
struct UnixSocket {
    let descriptor: Int32

    struct Failure: Error { let call: String }

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(call: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, 1) == 0 else { throw Failure(call: "bind") }
    }

    func close() { Glibc.close(descriptor) }
}
