import DeepShim

/// The memory of a deep view's serial part, as DeepShim's C lays it out (DeepShim.h), for a reference
/// orbit of `steps` steps: an upper bound when `steps` is the iteration limit, since an orbit that
/// escapes sooner takes less. The tiny steps (Z below 2⁻⁹⁶⁰, 32 bytes each) are left out: an orbit
/// has a handful of them, if any.
struct DeepMemory {
    /// The orbit's steps: the iteration limit.
    let steps: Int
    /// Whether the pixels use the BLA table (``DeepView/usesTable``).
    let usesTable: Bool

    /// Z_0 … Z_steps, two doubles each (`orbit`, which ``DeepReference`` allocates for the limit).
    var orbitBytes: Int { 16 * (steps + 1) }

    /// The BLA levels at the capacity `build_available` grows them to (from 4096 entries, doubling),
    /// a `deep_bla` and a `deep_bla_double` an entry; the quadratic table's levels, from
    /// `DEEP_QUAD_LOWEST_LEVEL`, at the capacity `quad_take` grows them to (from 1024), a
    /// `deep_quad_double` an entry; and `entry_radii`, a double per two steps.
    var tableBytes: Int {
        guard usesTable else { return 0 }
        // Level 1 has (steps − 1) / 2 entries, and each level half of the one below.
        let pairs = steps >= 1 ? (steps - 1) / 2 : 0
        let linear = Self.allocatedEntries(pairs, from: 4096)
        let quadratic = Self.allocatedEntries(pairs >> (Int(DEEP_QUAD_LOWEST_LEVEL) - 1), from: 1024)
        let linearBytes = MemoryLayout<deep_bla>.stride + MemoryLayout<deep_bla_double>.stride
        return linear * linearBytes + quadratic * MemoryLayout<deep_quad_double>.stride + 8 * (steps / 2 + 1)
    }

    /// The entries allocated for levels of `entries`, half as many, a quarter …: each level's
    /// array grown from `initial` by doubling until it holds its entries.
    private static func allocatedEntries(_ entries: Int, from initial: Int) -> Int {
        var allocated = 0
        var available = entries
        while available > 0 {
            var capacity = initial
            while capacity < available { capacity *= 2 }
            allocated += capacity
            available /= 2
        }
        return allocated
    }

    /// `lane_steps`: four doubles a step.
    var laneBytes: Int { 32 * (steps + 1) }

    /// What a process that computes the pixels holds: the orbit, the table and the lanes' steps.
    var rendererBytes: Int { orbitBytes + tableBytes + laneBytes }

    /// What the parent of helper processes holds in a pass (`process`): the orbit and the pass's
    /// recipe, which carries it; a picture with a preview has the preview's recipe besides while
    /// the full picture's is made.
    func parentBytes(recipes: Int) -> Int { orbitBytes * (1 + recipes) }

    /// What each helper process holds: the start frame it reads (the recipe, with the orbit), and
    /// the orbit, table and lanes' steps it builds from it.
    var helperBytes: Int { orbitBytes + rendererBytes }
}
