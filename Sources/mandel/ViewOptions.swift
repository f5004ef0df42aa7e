public import ArgumentParser
public import MandelbrotCore

/// What to draw: size, centre, zoom, iterations and colours.
struct ViewOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Image size, WxH or N for N×N (sides 1…65535, at most 268435456 pixels).", valueName: "size"))
    var size = "1200x800"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Centre of the view, re,im.", valueName: "re,im"))
    var center = "-0.5,0"

    @Option(help: "Magnification; 1 shows 3 units across the shorter side. Finite and > 0.")
    var zoom = 1.0

    @Option(help: "Iteration limit, 1…100000000.")
    var iterations = 256

    @Option(help: "Colouring: bw (the seeds' black and white), gray, or smooth (RGB palette).")
    var color: ColorScheme = .smooth

    mutating func validate() throws {
        let sides = try ArgumentParsing.dimensions(size, option: "--size", maximum: Limits.maximumSide)
        guard sides.width * sides.height <= Limits.maximumPixels else {
            throw ValidationError(
                "--size \(size) has \(sides.width * sides.height) pixels; the limit is \(Limits.maximumPixels) (16384x16384)")
        }
        _ = try ArgumentParsing.center(center)
        guard zoom.isFinite, zoom > 0 else {
            throw ValidationError("--zoom must be a finite number greater than 0 (got \(zoom))")
        }
        guard (1...Limits.maximumIterations).contains(iterations) else {
            throw ValidationError("--iterations must be from 1 to \(Limits.maximumIterations) (got \(iterations))")
        }
    }

    /// The image size; valid after `validate()`.
    var imageSize: ImageSize {
        let sides = try! ArgumentParsing.dimensions(size, option: "--size", maximum: Limits.maximumSide)
        return ImageSize(width: sides.width, height: sides.height)
    }

    /// The viewport; valid after `validate()`.
    var viewport: Viewport {
        let point = try! ArgumentParsing.center(center)
        return Viewport(centerReal: point.real, centerImaginary: point.imaginary, zoom: zoom)
    }
}

extension ColorScheme: ExpressibleByArgument {}
