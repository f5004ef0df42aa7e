import Foundation

/// Self-contained SVG charts: a bar chart with whiskers for `compare`, a line chart for `sweep`.
package enum SVGChart {
    /// One bar: a strategy's median, with a whisker from min to max.
    package struct Bar: Sendable {
        package var label: String
        package var value: Double
        package var low: Double
        package var high: Double
        package var highlighted: Bool

        /// Creates a bar.
        package init(label: String, value: Double, low: Double, high: Double, highlighted: Bool) {
            self.label = label
            self.value = value
            self.low = low
            self.high = high
            self.highlighted = highlighted
        }
    }

    /// One line: a strategy's value at each point of the sweep.
    package struct Series: Sendable {
        package var name: String
        package var points: [(x: Double, y: Double)]

        /// Creates a series.
        package init(name: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.points = points
        }
    }

    /// What a bar's tooltip calls its three figures: the bar's end and the whisker's two; a whisker end
    /// named nil is the bar's own and is not repeated.
    package struct Figures: Sendable {
        package var value = "median", low: String? = "min", high = "max"

        package init() {}

        package init(value: String, low: String?, high: String) {
            self.value = value
            self.low = low
            self.high = high
        }

        /// "median 1.2, min 1.0, max 1.5".
        func tooltip(_ bar: Bar) -> String {
            ["\(value) \(format(bar.value))", low.map { "\($0) \(format(bar.low))" }, "\(high) \(format(bar.high))"]
                .compactMap { $0 }.joined(separator: ", ")
        }
    }

    static let palette = [
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    ]
    static let width = 760.0, height = 440.0
    static let left = 80.0, right = 190.0, top = 56.0, bottom = 64.0

    /// Horizontal axis from 0 at the left; one bar per strategy, whiskers from min to max.
    package static func bars(
        title: String, subtitle: String, valueLabel: String, bars: [Bar],
        legend legendEntries: [(String, String)] = [
            ("bar: median of the runs", "#888"), ("whisker: min to max", "#222"),
        ],
        figures: Figures = Figures()
    ) -> String {
        // Room for the longest label at about 7 pixels a character.
        let left = max(Self.left, Double(bars.map(\.label.count).max() ?? 0) * 7 + 20)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let maximum = niceCeiling(bars.map(\.high).max() ?? 1)
        let slot = plotHeight / Double(max(bars.count, 1))
        var body = ""
        for tick in ticks(upTo: maximum) {
            let x = left + tick / maximum * plotWidth
            body += line(x, top, x, top + plotHeight, stroke: "#e0e0e0")
            body += text(format(tick), x: x, y: top + plotHeight + 18, anchor: "middle", size: 11)
        }
        for (index, bar) in bars.enumerated() {
            let y = top + Double(index) * slot
            let barHeight = slot * 0.6
            let color = palette[index % palette.count]
            body += #"<g class="series" data-name="\#(escape(bar.label))">"#
            let outline = bar.highlighted ? ##" stroke="#000" stroke-width="2""## : ""
            body +=
                #"<rect x="\#(left)" y="\#(y + slot * 0.2)" width="\#(bar.value / maximum * plotWidth)" "#
                + #"height="\#(barHeight)" fill="\#(color)"\#(outline)><title>\#(escape(bar.label)): "#
                + #"\#(escape(figures.tooltip(bar)))</title></rect>"#
            let middle = y + slot * 0.5
            body += line(
                left + bar.low / maximum * plotWidth, middle, left + bar.high / maximum * plotWidth, middle,
                stroke: "#222")
            body += line(
                left + bar.low / maximum * plotWidth, middle - 6, left + bar.low / maximum * plotWidth, middle + 6,
                stroke: "#222")
            body += line(
                left + bar.high / maximum * plotWidth, middle - 6, left + bar.high / maximum * plotWidth, middle + 6,
                stroke: "#222")
            body += "</g>"
            body += text(bar.label, x: left - 8, y: middle + 4, anchor: "end", size: 12)
            body += text(
                format(bar.value) + (bar.highlighted ? "  fastest" : ""), x: left + bar.high / maximum * plotWidth + 8,
                y: middle + 4, anchor: "start", size: 11)
        }
        body += line(left, top, left, top + plotHeight, stroke: "#333")
        body += line(left, top + plotHeight, left + plotWidth, top + plotHeight, stroke: "#333")
        body += text(valueLabel, x: left + plotWidth / 2, y: height - 18, anchor: "middle", size: 12)
        body += legend(legendEntries)
        return document(title: title, subtitle: subtitle, body: body)
    }

    /// One line per series; logarithmic axes where values span orders of magnitude (tile sizes, times).
    package static func lines(
        title: String, subtitle: String, xLabel: String, yLabel: String, logarithmicX: Bool,
        logarithmicY: Bool = false, timeSeries: Bool = false, series: [Series]
    ) -> String {
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let xs = series.flatMap { $0.points.map(\.x) }
        // A time series starts at 0, has round ticks rather than one per sample, and no markers.
        let minX = timeSeries ? 0 : xs.min() ?? 0
        let maxX = timeSeries ? niceCeiling(xs.max() ?? 1) : xs.max() ?? 1
        let ys = series.flatMap { $0.points.map(\.y) }.filter { !logarithmicY || $0 > 0 }
        let maximumY = niceCeiling(ys.max() ?? 1)
        let minimumY = logarithmicY ? pow(10, floor(log10(ys.min() ?? 1))) : 0
        func xPosition(_ x: Double) -> Double {
            guard maxX > minX else { return left + plotWidth / 2 }
            let fraction =
                logarithmicX ? (log2(x) - log2(minX)) / (log2(maxX) - log2(minX)) : (x - minX) / (maxX - minX)
            return left + fraction * plotWidth
        }
        func yPosition(_ y: Double) -> Double {
            let fraction =
                logarithmicY
                ? (log10(Swift.max(y, minimumY)) - log10(minimumY)) / (log10(maximumY) - log10(minimumY))
                : y / maximumY
            return top + plotHeight - fraction * plotHeight
        }
        var body = ""
        for tick in logarithmicY ? logarithmicTicks(from: minimumY, to: maximumY) : ticks(upTo: maximumY) {
            body += line(left, yPosition(tick), left + plotWidth, yPosition(tick), stroke: "#e0e0e0")
            body += text(format(tick), x: left - 8, y: yPosition(tick) + 4, anchor: "end", size: 11)
        }
        for x in timeSeries ? ticks(upTo: maxX) : Set(xs).sorted() {
            body += line(xPosition(x), top, xPosition(x), top + plotHeight, stroke: "#f0f0f0")
            body += text(format(x), x: xPosition(x), y: top + plotHeight + 18, anchor: "middle", size: 11)
        }
        var legendEntries: [(String, String)] = []
        for (index, entry) in series.enumerated() {
            let color = palette[index % palette.count]
            let points = entry.points.sorted { $0.x < $1.x }
            let path = points.map { "\(xPosition($0.x)),\(yPosition($0.y))" }.joined(separator: " ")
            body += #"<g class="series" data-name="\#(escape(entry.name))">"#
            body += #"<polyline points="\#(path)" fill="none" stroke="\#(color)" stroke-width="2"/>"#
            for point in points where !timeSeries {
                body +=
                    #"<circle cx="\#(xPosition(point.x))" cy="\#(yPosition(point.y))" r="3.5" fill="\#(color)">"#
                    + #"<title>\#(escape(entry.name)): \#(format(point.y)) at \#(format(point.x))</title></circle>"#
            }
            body += "</g>"
            legendEntries.append((entry.name, color))
        }
        body += line(left, top, left, top + plotHeight, stroke: "#333")
        body += line(left, top + plotHeight, left + plotWidth, top + plotHeight, stroke: "#333")
        body += text(
            xLabel + (logarithmicX ? " (log scale)" : ""), x: left + plotWidth / 2, y: height - 18, anchor: "middle",
            size: 12)
        let yTitle = yLabel + (logarithmicY ? " (log scale)" : "")
        body +=
            #"<text x="18" y="\#(top + plotHeight / 2)" font-size="12" text-anchor="middle" "#
            + #"transform="rotate(-90 18 \#(top + plotHeight / 2))">\#(escape(yTitle))</text>"#
        body += legend(legendEntries)
        return document(title: title, subtitle: subtitle, body: body)
    }

    // MARK: - Pieces

    static func document(title: String, subtitle: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif">
        <title>\(escape(title))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>
        <text x="\(left)" y="24" font-size="16" font-weight="bold">\(escape(title))</text>
        <text x="\(left)" y="42" font-size="11" fill="#555">\(escape(subtitle))</text>
        \(body)
        </svg>

        """
    }

    static func legend(_ entries: [(String, String)]) -> String {
        var result = ""
        for (index, entry) in entries.enumerated() {
            let y = top + 8 + Double(index) * 20
            result += #"<rect x="\#(width - right + 20)" y="\#(y - 9)" width="12" height="12" fill="\#(entry.1)"/>"#
            result += text(entry.0, x: width - right + 38, y: y + 1, anchor: "start", size: 12)
        }
        return result
    }

    static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) -> String {
        #"<line x1="\#(x1)" y1="\#(y1)" x2="\#(x2)" y2="\#(y2)" stroke="\#(stroke)" stroke-width="1"/>"#
    }

    static func text(_ content: String, x: Double, y: Double, anchor: String, size: Int) -> String {
        #"<text x="\#(x)" y="\#(y)" font-size="\#(size)" text-anchor="\#(anchor)">\#(escape(content))</text>"#
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// 1, 2 or 5 times a power of ten, at or above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        for step in [1.0, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    /// 1, 2 and 5 times each power of ten between the bounds.
    static func logarithmicTicks(from minimum: Double, to maximum: Double) -> [Double] {
        var result: [Double] = []
        var power = minimum
        while power <= maximum {
            result += [power, 2 * power, 5 * power].filter { $0 <= maximum }
            power *= 10
        }
        return result
    }

    static func ticks(upTo maximum: Double) -> [Double] {
        (0...5).map { maximum * Double($0) / 5 }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e6
            ? String(Int(value)) : String(format: value < 10 ? "%.2f" : "%.1f", value)
    }
}
