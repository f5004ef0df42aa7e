import MandelbrotCore
import Testing

@testable import ProcessDriver

/// A helper reads its parent through a pipe, which hands over what has arrived: a frame may come in
/// pieces of any size. Every in-process session's input (``WireInput``) handed a read all it asked
/// for, so a reader that put each piece over the first went unseen (round eight's
/// helper-reader-refills-start); the real binary's tests write small frames, which a pipe passes whole.
@Suite struct HelperReadInPiecesTests {
    /// How a session over `bytes`, read at most `piece` bytes at a time, ended, and its done frames'
    /// tile indices and results (the times they carry left out).
    static func serve(_ bytes: [UInt8], piece: Int) -> (ending: HelperSession.Ending, done: [[UInt8]], unread: Int) {
        let input = WireInput(bytes, piece: piece)
        var written: [UInt8] = []
        let session = HelperSession(
            read: input.read,
            write: { raw in
                written += raw
                return true
            },
            memoryAvailable: { 1 << 40 })
        let ending = session.run()
        var done: [[UInt8]] = []
        var offset = 0
        while offset + 8 <= written.count {
            let kind = written[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let length = written[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            let payload = Array(written[(offset + 8)..<min(written.count, offset + 8 + length)])
            if kind == HelperWire.done {
                done.append(Array(payload.prefix(4)) + payload.dropFirst(HelperFrame.doneHeaderBytes))
            }
            offset += 8 + length
        }
        return (ending, done, input.unread)
    }

    @Test(
        "frames read in pieces of any size are served as frames read whole: a recipe, a deep one, their tiles",
        arguments: [1, 3, 7, 64, 4099])
    func piecesOfAnySize(piece: Int) {
        var deep = HelperWire.Recipe()
        deep.deep = HelperWire.Recipe.Deep()
        deep.deep?.gridSide = 12
        let input =
            HelperWire.startFrame(recipe: HelperWire.Recipe.colouring(2, width: 48, height: 40).bytes)
            + HelperWire.tileFrame(0, x: 0, y: 0, width: 48, height: 40)
            + HelperWire.tileFrame(1, x: 5, y: 7, width: 16, height: 9)
            + HelperWire.startFrame(recipe: deep.bytes) + HelperWire.tileFrame(2, x: 0, y: 0, width: 16, height: 12)
        let whole = Self.serve(input, piece: .max)
        #expect(whole.ending == .inputEnded && whole.done.count == 3, "\(whole.ending), \(whole.done.count) done")
        let pieces = Self.serve(input, piece: piece)
        #expect(pieces.ending == .inputEnded, "\(pieces.ending)")
        #expect(pieces.unread == 0)
        #expect(pieces.done == whole.done, "results read in pieces of \(piece) bytes differ from those read whole")
    }
}
