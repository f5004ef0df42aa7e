import Platform

/// Deliberate failures of helpers, for tests of crash isolation: what a helper does wrong,
/// and when, read from `MANDEL_HELPER_FAULTS` in its environment.
///
/// The variable is a comma-separated list of `KIND:SLOT.GENERATION@TILE`: the helper that
/// serves slot `SLOT` (0 to workers − 1) in its `GENERATION`-th incarnation (0 first, 1
/// after its first death, …) does `KIND` when it receives its `TILE`-th tile request
/// (0 first) of a pass. `*` in place of a number matches any. The kinds:
/// - `trap`: `fatalError` (a Swift trap: SIGILL).
/// - `segv`: `raise(SIGSEGV)` (fatal with the backtracer off, as helpers run).
/// - `exit`: exits with status 3 without answering.
/// - `hang`: stops answering and reading, for ever.
/// - `garbage`: answers with a frame of an unknown kind.
/// - `short`: announces a result and sends half of it, then hangs.
/// - `foreign`: answers for a tile it was not given.
/// - `oversize`: announces a result far longer than the tile's.
/// - `overcount`: answers with the tile's pixels and more iterations than its samples could take.
/// - `future`: answers with the tile's pixels, finished ten seconds from now.
struct HelperFaults {
    enum Kind: String, CaseIterable {
        case trap, segv, exit, hang, garbage, short, foreign, oversize, overcount, future
    }

    struct Fault {
        let kind: Kind
        let slot: Int?
        let generation: Int?
        let tile: Int?
    }

    let faults: [Fault]

    /// The faults `text` lists; a malformed entry is ignored (tests write them, users do not).
    init(_ text: String?) {
        faults = (text ?? "").split(separator: ",").compactMap { entry in
            let parts = entry.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])) else { return nil }
            let whereWhen = parts[1].split(separator: "@", maxSplits: 1)
            let who = whereWhen[0].split(separator: ".", maxSplits: 1)
            guard whereWhen.count == 2, who.count == 2 else { return nil }
            func number(_ text: Substring) -> Int?? { text == "*" ? .some(nil) : Int(text).map { .some($0) } }
            guard let slot = number(who[0]), let generation = number(who[1]), let tile = number(whereWhen[1]) else {
                return nil
            }
            return Fault(kind: kind, slot: slot, generation: generation, tile: tile)
        }
    }

    /// The fault the helper of `slot`, `generation` commits at its `tile`-th request, if any.
    func fault(slot: Int, generation: Int, tile: Int) -> Kind? {
        faults.first { fault in
            (fault.slot ?? slot) == slot && (fault.generation ?? generation) == generation
                && (fault.tile ?? tile) == tile
        }?.kind
    }
}
