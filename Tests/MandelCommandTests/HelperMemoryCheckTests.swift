import Foundation
import MandelbrotCore
import Testing

@testable import ProcessDriver

/// A helper's memory check before each tile: what it reads of the room left (`/proc` and the
/// cgroup's files, dearer than a small tile's pixels), and when it reads it again.
@Suite struct HelperMemoryCheckTests {
    /// A smooth-coloured recipe of 48 × 40 pixels, and the bytes a tile of `width` × `height` at the
    /// corner needs from it, as the helper counts them.
    static var recipe: HelperWire.Recipe { .colouring(1, width: 48, height: 40) }

    static func needed(width: Int, height: Int) throws -> Int {
        let decoded = try recipe.bytes.withUnsafeBytes { try TileRecipe(decoding: $0) }
        return decoded.bytesNeeded(
            for: PixelRect(x: 0, y: 0, width: width, height: height), workspace: TileRecipe.Workspace())
    }

    /// Serves `tiles` (width, height at the corner) of the recipe with `memory` as the room left
    /// (each read counted, the first taking `firstReadSeconds`); returns how the session ended and how
    /// many times it read the room.
    static func serve(
        _ tiles: [(Int, Int)], memory: Int?, firstReadSeconds: Double = 0
    ) -> (ending: HelperSession.Ending, reads: Int) {
        var bytes = HelperWire.startFrame(recipe: recipe.bytes)
        for (index, (width, height)) in tiles.enumerated() {
            bytes += HelperWire.tileFrame(UInt32(index), x: 0, y: 0, width: UInt32(width), height: UInt32(height))
        }
        var reads = 0
        let session = HelperSession(
            read: WireInput(bytes).read,
            write: { _ in true },
            memoryAvailable: {
                reads += 1
                if reads == 1 && firstReadSeconds > 0 { usleep(UInt32(firstReadSeconds * 1e6)) }
                return memory
            })
        return (session.run(), reads)
    }

    @Test("small tiles go by one reading of the room left; a tile needing more than a sixteenth of it reads again")
    func smallTilesReadOnce() throws {
        let small = try Self.needed(width: 2, height: 2)
        let whole = try Self.needed(width: 48, height: 40)
        #expect(whole > small)
        // Room for sixteen small tiles, and for the whole picture, but not sixteen of it.
        let room = max(16 * small, whole)
        #expect(room / 16 < whole)
        let served = Self.serve([(2, 2), (2, 2), (2, 2), (48, 40), (2, 2), (2, 2)], memory: room)
        #expect(served.ending == .inputEnded)
        #expect(served.reads == 2, "read the room \(served.reads) times")
        // No limit known: read once, and every tile goes by it.
        let unlimited = Self.serve([(2, 2), (48, 40), (2, 2)], memory: nil)
        #expect(unlimited.ending == .inputEnded && unlimited.reads == 1, "\(unlimited)")
    }

    /// A reading holds for a second: the room left changes as other processes take memory. Every test
    /// before served its tiles within milliseconds, so a reading that never went stale passed them
    /// (round eight's helper-room-reading-never-stale). Here the first reading takes 1.2 s (a slow
    /// `/proc`): the next small tile comes when it is over a second old, and reads again.
    @Test("a reading of the room left over a second old is read again, however small the tile")
    func oldReadingReadAgain() {
        let served = Self.serve([(2, 2), (2, 2), (2, 2)], memory: 1 << 40, firstReadSeconds: 1.2)
        #expect(served.ending == .inputEnded)
        // The third tile goes by the second reading, unless a loaded machine held it back a second too.
        #expect((2...3).contains(served.reads), "read the room \(served.reads) times")
    }

    @Test("a tile that needs more than the room left is refused with 71, after small tiles went by a reading")
    func largeTileStillRefused() throws {
        let whole = try Self.needed(width: 48, height: 40)
        let served = Self.serve([(2, 2), (48, 40)], memory: whole - 1)
        #expect(served.ending.status == HelperRefusal.noMemoryStatus, "\(served.ending)")
        #expect(served.reads == 2)
    }
}
