import Platform

/// Conversions between 8-bit sRGB values and linear light, for averaging samples.
///
/// Averaging the encoded values would darken every edge (sRGB is not linear in
/// light); averaging in linear light and encoding the result is what the eye expects.
enum LinearLight {
    /// The linear light of every 8-bit sRGB value.
    static let fromSRGB: [Double] = (0..<256).map { value in
        let encoded = Double(value) / 255
        return encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
    }

    /// The 8-bit sRGB value of a linear light level in 0…1.
    static func toSRGB(_ linear: Double) -> UInt8 {
        let clamped = min(max(linear, 0), 1)
        let encoded = clamped <= 0.0031308 ? 12.92 * clamped : 1.055 * pow(clamped, 1 / 2.4) - 0.055
        return UInt8((encoded * 255).rounded())
    }
}
