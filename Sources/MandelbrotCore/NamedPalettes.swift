/// The palettes known by name.
extension Palette {
    /// Every named palette, the default first.
    public static let named: [(name: String, summary: String, palette: Palette)] = [
        ("classic", "deep blue through white to gold (the default)", .classic),
        (
            "fire", "black through red and orange to pale yellow",
            Palette(evenlySpaced: [
                (0, 0, 0), (128, 0, 0), (230, 60, 0), (255, 170, 0), (255, 240, 160), (255, 170, 0), (230, 60, 0),
                (128, 0, 0),
            ])
        ),
        (
            "ocean", "navy through teal and cyan to white",
            Palette(evenlySpaced: [
                (2, 8, 40), (0, 60, 110), (0, 128, 150), (80, 200, 210), (230, 250, 255), (80, 200, 210), (0, 128, 150),
                (0, 60, 110),
            ])
        ),
        (
            "forest", "dark green through moss and sand",
            Palette(evenlySpaced: [
                (8, 24, 10), (34, 85, 34), (120, 160, 60), (220, 210, 150), (120, 160, 60), (34, 85, 34),
            ])
        ),
        ("grayscale", "black to white and back", Palette(evenlySpaced: [(0, 0, 0), (255, 255, 255)])),
        (
            "rainbow", "the hue circle",
            Palette(evenlySpaced: [
                (255, 0, 0), (255, 160, 0), (240, 240, 0), (0, 200, 0), (0, 170, 255), (60, 60, 255), (200, 0, 220),
            ])
        ),
    ]

    /// The palette called `name`, if there is one.
    public static func named(_ name: String) -> Palette? {
        named.first { $0.name == name }?.palette
    }
}
