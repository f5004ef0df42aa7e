import Foundation
import MandelbrotCore
import ProcessTestSupport
import Testing

@testable import ProcessDriver

/// The parent reads its helpers as strangers: a program that is not mandel's helper (a corrupted
/// pipe, a replaced binary) may say anything. Each test starts a real program, a shell script that
/// prints frames, as a helper, and checks that the parent's connection refuses what it says at
/// once, with one line, and takes no memory on its word.
@Suite("Stranger helpers")
struct StrangerHelperTests {
    /// Two seconds: the parent's deadline for a word from its helper.
    static let deadline: UInt64 = 2_000_000_000

    /// A `ready` frame saying the table took `tableNanoseconds`.
    static func ready(tableNanoseconds: UInt64 = 0) -> [UInt8] {
        var payload = HelperWire.Bytes()
        payload.u32(2)
        payload.u64(tableNanoseconds)
        return HelperWire.frame(HelperWire.ready, payload.data)
    }

    /// A helper that prints `bytes` and then waits, its output open, for the parent to end it.
    static func stranger(printing bytes: [UInt8]) throws -> (HelperConnection, folder: String) {
        let folder = temporaryFolder()
        let script = folder + "/helper"
        // printf's octal escapes: every byte, whatever it is.
        let escaped = bytes.map { "\\" + String($0, radix: 8) }.joined()
        try "#!/bin/sh\nprintf '\(escaped)'\nexec sleep 30\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        // A program that another thread's fork holds open for writing cannot be started yet (ETXTBSY).
        var tries = 0
        while true {
            let started = Result { () throws(HelperConnection.Breakdown) -> HelperConnection in
                try HelperConnection(executable: script, slot: 0, generation: 0, deadlineNanoseconds: deadline)
            }
            tries += 1
            if case .failure(let error) = started, error.description.contains("Text file busy"), tries < 100 {
                usleep(20_000)
                continue
            }
            return (try started.get(), folder)
        }
    }

    /// What the parent says about a stranger that prints `bytes` in answer to a recipe and one tile.
    static func breakdown(_ bytes: [UInt8]) throws -> (description: String, seconds: Double) {
        let (helper, folder) = try stranger(printing: bytes)
        defer {
            _ = helper.kill()
            try? FileManager.default.removeItem(atPath: folder)
        }
        let started = Date()
        do {
            _ = try helper.handshake(recipe: [0], startupNanoseconds: 10_000_000_000)
            try helper.request(0, .init(x: 0, y: 0, width: 1, height: 1))
            _ = try helper.awaitTile(0, resultBytes: 3)
        } catch {
            return (error.description, Date().timeIntervalSince(started))
        }
        Issue.record("the parent took every word of the stranger")
        return ("", 0)
    }

    @Test("a table built in longer than the handshake took is not a time: refused")
    func tableTimeBeyondTheHandshake() throws {
        let said = try Self.breakdown(Self.ready(tableNanoseconds: 1 << 62))
        #expect(said.description.contains("building its table"), "\(said.description)")
    }

    @Test("a failure with line breaks and terminal codes is told on one line, escaped")
    func failureOnOneLine() throws {
        let reason = Array("no\nreally\u{1B}[31m red".utf8)
        let said = try Self.breakdown(Self.ready() + HelperWire.frame(HelperWire.failed, reason))
        #expect(!said.description.contains("\n") && !said.description.contains("\u{1B}"), "\(said.description)")
        #expect(said.description.contains("no\\nreally\\u{1B}[31m red"), "\(said.description)")
    }

    @Test("signs of life faster than a helper gives them, and no tile: refused at once, not after the deadline")
    func floodOfProgress() throws {
        var flood: [UInt8] = []
        for _ in 0..<200 { flood += HelperWire.frame(HelperWire.progress, [0, 0, 0, 0]) }
        let said = try Self.breakdown(Self.ready() + flood)
        #expect(said.description.contains("signs of life"), "\(said.description)")
        #expect(said.seconds < 1.5, "\(said.seconds) s")
    }

    /// Headers claiming what no frame of their kind holds: refused on the header, nothing allocated.
    static let headers: [(String, [UInt8])] = [
        ("a ready frame of 2^31 bytes", HelperWire.frame(HelperWire.ready, length: 1 << 31)),
        ("a progress frame of 2^32 − 1 bytes", ready() + HelperWire.frame(HelperWire.progress, length: .max)),
        ("a done frame shorter than its fields", ready() + HelperWire.frame(HelperWire.done, length: 5)),
        ("a done frame of 2^32 − 1 bytes", ready() + HelperWire.frame(HelperWire.done, length: .max)),
        ("a failed frame of 2^31 bytes", ready() + HelperWire.frame(HelperWire.failed, length: 1 << 31)),
        ("a frame of kind 2^32 − 1", ready() + HelperWire.frame(.max, length: 1 << 31)),
        ("a start frame from a helper", ready() + HelperWire.frame(HelperWire.start, length: 1 << 31)),
    ]

    @Test("a header no frame of its kind could have ends the helper on the header", arguments: headers)
    func impossibleHeader(_ name: String, _ bytes: [UInt8]) throws {
        let said = try Self.breakdown(bytes)
        #expect(!said.description.isEmpty, "\(name)")
        #expect(said.seconds < 1.5, "\(name): \(said.seconds) s: it waited for a payload")
    }
}
