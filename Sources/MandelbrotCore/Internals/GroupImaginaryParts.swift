/// Where the vector kernel takes a group's imaginary parts from, four vectors' worth: one row's,
/// the same in every lane, or each lane's own, when a narrow tile's rows share a group.
///
/// The kernel's loops are generic over it, so each source gets loops of its own: a row's splat
/// is one value, which the optimiser keeps in one register for all four vectors, as before
/// there was a choice.
protocol GroupImaginaryParts {
    /// Lanes `first ..< first + lanes` of the group of `width` samples, 0 past `width`.
    func vector(first: Int, width: Int) -> VectorRowKernel.Vector
}

/// One row's imaginary part, in every lane.
struct RowImaginaryPart: GroupImaginaryParts {
    let value: Double

    @inline(__always)
    func vector(first: Int, width: Int) -> VectorRowKernel.Vector { VectorRowKernel.Vector(repeating: value) }
}

/// Each sample's own imaginary part, one per lane.
struct LaneImaginaryParts: GroupImaginaryParts {
    let parts: UnsafePointer<Double>

    @inline(__always)
    func vector(first: Int, width: Int) -> VectorRowKernel.Vector {
        VectorRowKernel.load(parts, first: first, width: width)
    }
}
