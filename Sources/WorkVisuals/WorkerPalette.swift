/// Distinct colours for workers, from the Tableau 10 palette; they repeat after ten.
enum WorkerPalette {
    static let colors = [
        RGB(78, 121, 167), RGB(242, 142, 43), RGB(225, 87, 89), RGB(118, 183, 178), RGB(89, 161, 79),
        RGB(237, 201, 72), RGB(176, 122, 161), RGB(255, 157, 167), RGB(156, 117, 95), RGB(186, 176, 172),
    ]

    static func color(for worker: Int) -> RGB { colors[worker % colors.count] }
}
