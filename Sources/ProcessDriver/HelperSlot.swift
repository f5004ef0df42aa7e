import MandelbrotCore
import Platform

/// A slot of the process strategy: its thread keeps a helper, and replaces it when it breaks down.
extension ProcessStrategy {
    /// Where a slot's tiles come from.
    enum TileSource {
        /// The render's shared counter (the `tiles` split).
        case shared
        /// The slot's own list (a static split).
        case fixed([Int])
    }

    /// A slot's thread: keeps a helper, replacing it when it breaks down, until the slot's tiles are done.
    static func serve(slot: Int, tiles: TileSource, pass: SharedPass, recipe: TileRecipe) {
        let work = pass.work
        var position = 0
        func nextTile() -> Int? {
            switch tiles {
            case .shared: return work.nextTile()
            case .fixed(let list):
                guard position < list.count, !work.isCancelled else { return nil }
                defer { position += 1 }
                return list[position]
            }
        }
        var retry: [Int] = []
        var generation = 0
        var deathsInARow = 0
        var exhausted = false
        while !pass.isStopped {
            var asked: [Int] = []
            let helper: HelperConnection
            do {
                helper =
                    try pass.pool?.take(
                        executable: pass.executable, slot: slot, generation: generation,
                        deadlineNanoseconds: deadlineNanoseconds)
                    ?? HelperConnection(
                        executable: pass.executable, slot: slot, generation: generation,
                        deadlineNanoseconds: deadlineNanoseconds)
            } catch {
                // The program cannot be started at all: no use trying again.
                work.reportFailure(.helpersFailed("helper \(slot): \(error)"))
                return
            }
            pass.adopt(helper, slot: slot)
            // A kept helper has worked before: this pass counts only what it uses from here.
            let processorTimeBefore = helper.processorTimeSoFar ?? .zero
            do {
                let tableSeconds = try helper.handshake(recipe: pass.recipe, startupNanoseconds: startupNanoseconds)
                pass.recordTable(seconds: tableSeconds)
                while true {
                    // A dead helper's tiles first, then new ones until the source runs dry.
                    while asked.count < requestsAhead {
                        let next = retry.isEmpty ? (exhausted ? nil : nextTile()) : retry.removeFirst()
                        guard let tile = next else {
                            exhausted = true
                            break
                        }
                        // Counted as asked before it is sent: a helper that dies as it is sent still owes it.
                        asked.append(tile)
                        try helper.request(tile, work.rect(ofTile: tile))
                    }
                    guard let tile = asked.first else { break }
                    let finished = try helper.awaitTile(
                        tile, resultBytes: recipe.resultBytes(for: work.rect(ofTile: tile)))
                    let kept: Bool
                    do {
                        kept = try work.finishTile(
                            tile, result: finished.result, iterations: finished.iterations, start: finished.start,
                            end: finished.end)
                    } catch {
                        throw HelperConnection.Breakdown(description: "sent a bad result for tile \(tile): \(error)")
                    }
                    asked.removeFirst()
                    deathsInARow = 0
                    if !kept { break }
                }
                if let pool = pass.pool {
                    // The tiles still asked for come anyway: read and thrown away, so that the helper
                    // goes back to the pool with nothing owed (a cancel is then no more than them).
                    for tile in asked {
                        _ = try helper.awaitTile(tile, resultBytes: recipe.resultBytes(for: work.rect(ofTile: tile)))
                    }
                    pass.release(slot: slot)
                    work.recordHelperProcessorTime(
                        (helper.processorTimeSoFar ?? processorTimeBefore).since(processorTimeBefore))
                    pool.give(helper)
                    return
                }
                pass.release(slot: slot)
                if pass.isStopped {
                    _ = helper.kill()
                } else {
                    helper.finish(graceNanoseconds: 1_000_000_000)
                }
                work.recordHelperProcessorTime(helper.processorTime)
                return
            } catch {
                pass.release(slot: slot)
                pass.pool?.returned(helper)
                let ending = helper.kill()
                work.recordHelperProcessorTime(helper.processorTime.since(processorTimeBefore))
                if pass.isStopped { return }
                retry = asked + retry
                guard
                    pass.recordBreakdown(
                        slot: slot, "\(error) (\(ending))", deathsInARow: &deathsInARow,
                        retried: asked.count)
                else { return }
                generation += 1
            }
        }
    }
}
