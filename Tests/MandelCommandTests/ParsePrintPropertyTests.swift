import ArgumentParser
import Foundation
import MandelOptions
import MandelbrotCore
import PropertyBased
import RenderModel
import Testing

@testable import mandel

/// Parse → print → parse: any value in an option's range, printed as a user would type it (the
/// shortest decimal that reads back as it, in either notation, with blanks around it), parses to
/// exactly that value, and printing what was parsed and parsing again changes nothing.
@Suite("Option properties")
struct ParsePrintPropertyTests {
    /// A number as a user might type it: the shortest decimal, or the same in exponent notation,
    /// with blanks around it (which the one rule ignores).
    static func typed(_ value: Double, exponent: Bool) -> String {
        let shortest = "\(value)"
        guard exponent, value != 0, !shortest.contains("e") else { return " \(shortest) " }
        // 123.25 → 1.2325e2: the same digits, so the same value once parsed.
        let digits = shortest.replacingOccurrences(of: "-", with: "")
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        let whole = String(parts[0])
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        guard whole != "0" else { return " \(shortest) " }
        let mantissa = whole.prefix(1) + "." + whole.dropFirst() + fraction
        return "\t\(value < 0 ? "-" : "")\(mantissa)e\(whole.count - 1) "
    }

    static func reals(_ range: ClosedRange<Double>) -> Generator<Double, Shrink.Floating<Double>> {
        Gen.double(in: range)
    }

    @Test("view, work and behaviour options: what is printed parses back to the same values")
    func viewAndWork() async throws {
        await propertyCheck(
            count: 15,
            input: zip(Gen.int(in: 1...5000), Gen.int(in: 1...5000), Gen.int(in: 1...5000), Gen.int(in: 1...5000)),
            zip(Self.reals(-2.5...2.5), Self.reals(-2.5...2.5), Self.reals(-2...13), Gen.int(in: 1...100_000_000)),
            zip(Self.reals(0.001...1e9), Self.reals(0...1), Gen.int(in: 1...8), Gen.int(in: 1...1024)),
            zip(Self.reals(0.1...1000), Self.reals(0...1000), Self.reals(0...3_600_000), Self.reals(0...3600)),
            zip(Gen.int(in: 2...65536), Gen.bool, Self.reals(-2...2), Self.reals(-2...2))
        ) { sizes, view, palette, behaviour, more in
            let (width, height, tileWidth, tileHeight) = sizes
            let tile = (min(tileWidth, width), min(tileHeight, height))
            let (re, im, zoomExponent, iterations) = view
            let zoom = (pow(10, zoomExponent) * 1e6).rounded() / 1e6
            let (cycle, offset, supersample, workers) = palette
            let (heartbeat, tileWait, cancelAfter, grace) = behaviour
            let (preview, exponent, juliaRe, juliaIm) = more
            func number(_ value: Double) -> String { Self.typed(value, exponent: exponent) }
            let arguments = [
                "--size", " \(width)\(exponent ? "X" : "x")\(height) ", "--tile", "\(tile.0)x\(tile.1)",
                "--center", "\(number(re)),\(number(im))", "--zoom", number(zoom), "--iterations", " \(iterations)",
                "--palette-cycle", number(cycle), "--palette-offset", number(offset), "--supersample", "\(supersample)",
                "--workers", "\(workers) ", "--heartbeat", number(heartbeat), "--tile-wait", number(tileWait),
                "--cancel-after", number(cancelAfter), "--grace", number(grace), "--preview", "\(preview)",
                "--julia", "\(number(juliaRe)),\(number(juliaIm))",
            ]
            guard let command = Self.parse(arguments) else { return }
            #expect(command.view.size == PixelSize(width: width, height: height))
            #expect(command.work.tile == [TileSize(width: tile.0, height: tile.1)])
            #expect(command.view.center?.real == re && command.view.center?.imaginary == im)
            #expect(command.view.zoom?.value == zoom)
            #expect(command.view.iterations == iterations)
            #expect(command.view.paletteCycle == cycle && command.view.paletteOffset == offset)
            #expect(command.view.supersample == supersample && command.work.workers == [workers])
            #expect(command.behaviour.heartbeat.milliseconds == heartbeat)
            #expect(
                command.behaviour.tileWait == [tileWait]
                    && command.behaviour.cancelAfter == cancelAfter)
            #expect(command.grace == grace && command.firstPicture.preview == preview)
            #expect(command.view.julia?.real == juliaRe && command.view.julia?.imaginary == juliaIm)
            // And printed again, from what was parsed, it parses to the same command.
            let again = try? RenderCommand.parse([
                "--size", "\(command.view.size.width)x\(command.view.size.height)",
                "--tile", "\(command.work.tile![0].width)x\(command.work.tile![0].height)",
                "--center", "\(command.view.center!.real),\(command.view.center!.imaginary)",
                "--zoom", "\(command.view.zoom!.value)", "--iterations",
                "\(command.view.iterations!)",
                "--palette-cycle", "\(command.view.paletteCycle!)", "--palette-offset",
                "\(command.view.paletteOffset!)",
                "--supersample", "\(command.view.supersample!)", "--workers",
                "\(command.work.workers![0])",
                "--heartbeat", "\(command.behaviour.heartbeat.milliseconds!)",
                "--tile-wait", "\(command.behaviour.tileWait[0])", "--cancel-after",
                "\(command.behaviour.cancelAfter!)",
                "--grace", "\(command.grace)", "--preview", "\(command.firstPicture.preview!)",
                "--julia", "\(command.view.julia!.real),\(command.view.julia!.imaginary)",
            ])
            // The numbers round-trip; their texts may be spelled differently.
            #expect(
                again?.view.center?.real == command.view.center?.real
                    && again?.view.center?.imaginary == command.view.center?.imaginary
                    && again?.view.zoom?.value == command.view.zoom?.value)
            #expect(
                again?.behaviour.cancelAfter == command.behaviour.cancelAfter
                    && again?.grace == command.grace)
        }
    }

    @Test("histogram sharing options: every merge and batch parses back to itself")
    func sharing() async {
        await propertyCheck(count: 10, input: Gen<HistogramMerge>.case, Gen.int(in: 1...1_048_576)) { merge, batch in
            let arguments = [
                "--size", "64x48", "--color", "histogram", "--merge", " \(merge.rawValue)", "--merge-batch",
                "\(batch) ",
            ]
            guard let command = Self.parse(arguments) else { return }
            #expect(command.sharing.sharing == HistogramSharing(merge: merge, batch: batch))
        }
    }

    /// The command `arguments` parse to, or nil after recording why it was refused.
    static func parse(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> RenderCommand? {
        do {
            return try RenderCommand.parse(arguments)
        } catch {
            Issue.record("\(arguments) refused: \(RenderCommand.message(for: error))", sourceLocation: sourceLocation)
            return nil
        }
    }
}
