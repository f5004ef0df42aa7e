/// How escape counts become pixel values.
public enum ColorScheme: String, Sendable, CaseIterable {
    /// The book's picture: the set black, everything else white; one bit per pixel
    /// (8-bit gray when supersampled, whose averages are grays). See ``PixelFormat``.
    case bw
    /// Gray levels: the set black, fast escapes white, slower escapes darker; 8-bit grayscale.
    case gray
    /// Continuous (normalised) iteration count over a palette, the set black; 8-bit RGB.
    case smooth
    /// The palette spread evenly over the image's own distribution of smooth escape
    /// values, the set black; 8-bit RGB. Takes two passes: one to count, one to colour.
    case histogram

    /// Whether the kernel must also report the fractional escape value.
    var needsSmoothValues: Bool { self == .smooth || self == .histogram }
}
