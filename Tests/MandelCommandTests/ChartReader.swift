import Foundation
import ProcessTestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

// ChartTests' reader of the SVG files that SVGChart writes: the elements, the axes' scales, the bars,
// markers and rows by where SVGChart puts them.

/// Whether two values in ms agree to a millionth (a value read back from a drawn position).
func nearly(_ value: Double, _ expected: Double) -> Bool {
    abs(value - expected) <= 1e-6 * max(1, abs(expected))
}

/// One element of an SVG file: its name, attributes, text and children.
final class SVGNode {
    let name: String
    let attributes: [String: String]
    var text = ""
    var children: [SVGNode] = []

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// Every element named `name` below this one, in document order.
    func descendants(_ name: String) -> [SVGNode] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
    }

    /// The child element named `name`'s text.
    func childText(_ name: String) -> String? { children.first { $0.name == name }?.text }

    /// A numeric attribute; NaN when it is missing or not a number.
    func number(_ key: String) -> Double { attributes[key].flatMap(Double.init) ?? .nan }

    /// A polyline's points, in order.
    var polylinePoints: [(x: Double, y: Double)] {
        (attributes["points"] ?? "").split(separator: " ").map { pair in
            let parts = pair.split(separator: ",").map { Double($0) ?? .nan }
            return (parts.first ?? .nan, parts.count == 2 ? parts[1] : .nan)
        }
    }
}

/// A chart that SVGChart wrote, parsed: its texts by where SVGChart puts them, its series, its axes.
struct SVGChartFile {
    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [SVGNode] = []
        var root: SVGNode?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let node = SVGNode(name: name, attributes: attributes)
            stack.last?.children.append(node)
            if root == nil { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }

        func parser(
            _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
        ) { stack.removeLast() }
    }

    let root: SVGNode

    init(path: String) throws {
        try self.init(data: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    init(data: Data) throws {
        let parser = XMLParser(data: data)
        let builder = Builder()
        parser.delegate = builder
        try #require(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        root = try #require(builder.root)
        try #require(root.name == "svg")
    }

    /// The document's title.
    var title: String { root.childText("title") ?? "" }
    /// The texts outside the series.
    private var texts: [SVGNode] { root.children.filter { $0.name == "text" } }
    /// The bold heading over the chart.
    var heading: String { texts.first { $0.attributes["y"] == "24" }?.text ?? "" }
    /// The grey line under the heading.
    var subtitle: String { texts.first { $0.attributes["y"] == "42" }?.text ?? "" }
    /// The label under the horizontal axis (SVGChart's height 440, less 18).
    var xLabel: String { texts.first { $0.number("y") == 422 }?.text ?? "" }
    /// The rotated label beside the vertical axis (line charts).
    var yLabel: String { texts.first { $0.attributes["transform"]?.hasPrefix("rotate") == true }?.text ?? "" }
    /// The legend's entries, top to bottom (right of the plot: 760 wide, less a margin of 190, and 38 more).
    var legend: [String] { texts.filter { $0.number("x") == 608 }.map(\.text) }
    /// The series (a line or a bar each), in order, by name.
    var series: [(name: String, group: SVGNode)] {
        root.children.filter { $0.name == "g" && $0.attributes["class"] == "series" }.map {
            ($0.attributes["data-name"] ?? "", $0)
        }
    }

    /// The horizontal axis, from the tick labels 18 pixels under it (the plot ends at 376).
    func xAxis(logarithmic: Bool) throws -> ChartAxis {
        try ChartAxis(
            ticks: texts.filter { $0.number("y") == 394 }.map { ($0.text, $0.number("x")) }, logarithmic: logarithmic)
    }

    /// The vertical axis of a line chart, from the tick labels 8 pixels left of it (at 80), 4 pixels low.
    func yAxis(logarithmic: Bool) throws -> ChartAxis {
        try ChartAxis(
            ticks: texts.filter { $0.number("x") == 72 && $0.attributes["text-anchor"] == "end" }.map {
                ($0.text, $0.number("y") - 4)
            }, logarithmic: logarithmic)
    }

    /// How far a value SVGChart printed may lie from the value: whole numbers exactly, under 10 to two
    /// decimals, from 10 to one.
    static func rounding(of value: Double) -> Double { value < 10 ? 0.0051 : 0.051 }
}

/// An axis as its tick labels place it: pixel = a + b·value, or a + b·log(value).
struct ChartAxis {
    let a: Double
    let b: Double
    let logarithmic: Bool

    init(ticks labels: [(text: String, pixel: Double)], logarithmic: Bool) throws {
        self.logarithmic = logarithmic
        let ticks = labels.compactMap { label in
            Double(label.text).flatMap { !logarithmic || $0 > 0 ? (value: $0, pixel: label.pixel) : nil }
        }
        try #require(ticks.count >= 2, "too few ticks to read an axis from: \(labels)")
        let (first, last) = (ticks.first!, ticks.last!)
        let scale: (Double) -> Double = logarithmic ? { log10($0) } : { $0 }
        b = (last.pixel - first.pixel) / (scale(last.value) - scale(first.value))
        a = first.pixel - b * scale(first.value)
        // Every tick between lies where its label says, to within the rounding of the label.
        for tick in ticks {
            #expect(abs(pixel(of: tick.value) - tick.pixel) < 1, "tick \(tick.value) at \(tick.pixel) of \(labels)")
        }
    }

    func pixel(of value: Double) -> Double { a + b * (logarithmic ? log10(value) : value) }

    func value(at pixel: Double) -> Double {
        let scaled = (pixel - a) / b
        return logarithmic ? pow(10, scaled) : scaled
    }
}

/// One bar of a bar chart: where its rectangle and whisker end, on `axis`, and what its tooltip says.
struct ChartBar {
    let label: String
    let start: Double
    let end: Double
    let whiskerLow: Double
    let whiskerHigh: Double
    /// The numbers of the tooltip, "label: median V, min L, max H", and what it calls them.
    let tooltip: [Double]
    let tooltipNames: [String]
    /// Whether the bar is drawn with an outline: the fastest's.
    let outlined: Bool

    init(_ group: SVGNode, on axis: ChartAxis) throws {
        let rect = try #require(group.descendants("rect").first)
        let whisker = try #require(group.descendants("line").first { $0.number("y1") == $0.number("y2") })
        start = axis.value(at: rect.number("x"))
        end = axis.value(at: rect.number("x") + rect.number("width"))
        whiskerLow = axis.value(at: whisker.number("x1"))
        whiskerHigh = axis.value(at: whisker.number("x2"))
        outlined = rect.attributes["stroke"] != nil
        let title = rect.childText("title") ?? ""
        label = title.components(separatedBy: ": ").first ?? ""
        let figures = (title.components(separatedBy: ": ").dropFirst().first ?? "").components(separatedBy: ", ")
        tooltip = figures.map { Double($0.split(separator: " ").last ?? "") ?? .nan }
        tooltipNames = figures.map { $0.split(separator: " ").dropLast().joined(separator: " ") }
    }
}

/// One marker of a line chart: where it is drawn, and its tooltip "series: y at x".
struct ChartMarker {
    let cx: Double
    let cy: Double
    let x: Double
    let y: Double
    /// The tooltip after the series' name: "y at x".
    let text: String

    init(_ circle: SVGNode, series: String) throws {
        cx = circle.number("cx")
        cy = circle.number("cy")
        let title = circle.childText("title") ?? ""
        try #require(title.hasPrefix(series + ": "), "\(title)")
        text = String(title.dropFirst(series.count + 2))
        let parts = text.components(separatedBy: " at ")
        try #require(parts.count == 2, "\(title)")
        y = try #require(Double(parts[0]), "\(title)")
        x = try #require(Double(parts[1]), "\(title)")
    }
}

/// The rows of a JSON export's "results".
struct ChartRows {
    struct Row {
        let object: [String: Any]

        func number(_ key: String) throws -> Double { try #require(object[key] as? Double, "\(key) in \(object)") }
        func integer(_ key: String) throws -> Int { try #require(object[key] as? Int, "\(key) in \(object)") }
    }

    let rows: [Row]

    init(jsonAt path: String) throws {
        self.init(try #require(try jsonObject(atPath: path)["results"] as? [[String: Any]]))
    }

    init(_ objects: [[String: Any]]) { rows = objects.map(Row.init) }

    var names: [String] { rows.map { $0.object["strategy"] as? String ?? "" } }

    func row(_ name: String) throws -> Row {
        try #require(rows.first { $0.object["strategy"] as? String == name }, "no row \(name) in \(names)")
    }
}

/// A sweep's JSON export: each point's value under `key`, and its rows.
struct SweepPoints {
    let values: [String]
    let rows: [ChartRows]

    init(jsonAt path: String, key: String) throws {
        let points = try #require(try jsonObject(atPath: path)["points"] as? [[String: Any]])
        values = points.map { "\($0[key] ?? "none")" }
        rows = try points.map { ChartRows(try #require($0["results"] as? [[String: Any]])) }
    }
}
