import Platform

/// Deep views' reference orbits (and their tables), kept for the renders that follow the one
/// that computed them: `mandel serve`'s tiles of one view share one orbit.
///
/// A reference is kept under everything that decides it: the view's decimal texts, the MPFR
/// precision, the farthest sample its table allows for (``RenderJob/deepReach``), the iteration
/// limit, and whether this process builds the table; a render that finds its own key takes the
/// reference as it is, so its pixels are the bytes it would have computed. At most `capacity`
/// references are kept, and at most `budgetBytes` of them (the newest is kept whatever its size),
/// the least recently used dropped first.
public final class DeepReferenceStore: Sendable {
    struct Key: Hashable {
        let view: DeepView
        let bits: Int
        let farthestOffset: UInt64
        let limit: Int
        let buildsTable: Bool
    }

    /// The most references kept at once.
    public let capacity: Int
    /// The most memory the kept references may hold together (``DeepMemory`` of each one's orbit).
    public let budgetBytes: Int
    /// Kept references, the most recently used last.
    private let entries = Locked<[(key: Key, reference: DeepReference)]>([])
    private let counts = Locked<(found: Int, computed: Int)>((0, 0))

    /// A store of at most `capacity` references and `budgetBytes` of memory (1 GiB by default);
    /// traps unless `capacity` is 1 or more.
    public init(capacity: Int = 2, budgetBytes: Int = 1 << 30) {
        precondition(capacity >= 1, "a store keeps at least one reference")
        self.capacity = capacity
        self.budgetBytes = budgetBytes
    }

    /// The memory a kept reference holds: its orbit as long as it came out (its escape, its period
    /// or the limit), and the table and lanes' steps built over it.
    private static func bytes(of key: Key, _ reference: DeepReference) -> Int {
        let memory = DeepMemory(steps: reference.phases.orbitLength, usesTable: key.view.usesTable)
        return key.buildsTable ? memory.rendererBytes : memory.orbitBytes
    }

    /// How many renders took a kept reference, and how many computed one.
    public var reuse: (found: Int, computed: Int) { counts.withLock { $0 } }

    /// How many references are kept now.
    public var count: Int { entries.withLock { $0.count } }

    /// The reference for `key`: the kept one, or the one `make` computes (kept unless it is nil,
    /// a cancelled computation). Two renders that miss at once both compute it; the second one
    /// kept replaces the first, which is the same.
    func reference(
        for key: Key, make: () throws(RenderFailure) -> DeepReference?
    ) throws(RenderFailure) -> (reference: DeepReference, wasKept: Bool)? {
        let kept = entries.withLock { entries -> DeepReference? in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.reference
        }
        if let kept {
            counts.withLock { $0.found += 1 }
            return (kept, true)
        }
        guard let made = try make() else { return nil }
        counts.withLock { $0.computed += 1 }
        entries.withLock { entries in
            entries.removeAll { $0.key == key }
            entries.append((key, made))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
            while entries.count > 1, entries.reduce(0, { $0 + Self.bytes(of: $1.key, $1.reference) }) > budgetBytes {
                entries.removeFirst()
            }
        }
        return (made, false)
    }
}
