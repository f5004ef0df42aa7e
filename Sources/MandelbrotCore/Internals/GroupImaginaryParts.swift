/// Where the vector kernel takes a group's imaginary parts from, four vectors' worth: one row's,
/// the same in every lane, or each lane's own, when a narrow tile's rows share a group.
///
/// The kernel's loops are generic over it, so each source gets loops of its own: a row's splat
/// is one value, which the optimiser keeps in one register for all four vectors, as before
/// there was a choice.
protocol GroupImaginaryParts {
    /// Lanes `first ..< first + lanes` of the group of `width` samples, 0 past `width`.
    func vector(first: Int, width: Int) -> VectorRowKernel.Vector

    /// Whether no sample can be in the main cardioid or the period-2 bulb, so that the kernel
    /// need not test for them.
    var outsideTheShortcut: Bool { get }
}

/// One row's imaginary part, in every lane.
struct RowImaginaryPart: GroupImaginaryParts {
    let value: Double

    @inline(__always)
    func vector(first: Int, width: Int) -> VectorRowKernel.Vector { VectorRowKernel.Vector(repeating: value) }

    /// The cardioid reaches |y| = 3√3/8 ≈ 0.6495 and the bulb 0.25: a row farther out than 0.7
    /// has no point that `certainlyInside` takes (its test is false there by 0.038 or more), and
    /// a third of the Benchmarks Game picture's rows are such. Leaving the test out is exact
    /// whatever the bound: a point that iterates instead gets the count the shortcut gives.
    @inline(__always)
    var outsideTheShortcut: Bool { value.magnitude > 0.7 }
}

/// Each sample's own imaginary part, one per lane.
struct LaneImaginaryParts: GroupImaginaryParts {
    let parts: UnsafePointer<Double>

    @inline(__always)
    func vector(first: Int, width: Int) -> VectorRowKernel.Vector {
        VectorRowKernel.load(parts, first: first, width: width)
    }

    @inline(__always)
    var outsideTheShortcut: Bool { false }
}
