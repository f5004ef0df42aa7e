public import ArgumentParser
public import MandelbrotCore

/// A fixed, well-known workload.
enum Preset: String, CaseIterable, ExpressibleByArgument {
    /// The Computer Language Benchmarks Game "mandelbrot" task: N×N, [−1.5, 0.5] × [−1, 1], 50 iterations.
    case benchmarksGame = "benchmarks-game"
}

/// What to draw: size, centre, zoom, iterations and colours, or a preset.
struct ViewOptions: ParsableArguments {
    static let defaultCenter = (real: -0.5, imaginary: 0.0)

    @Option(help: "A fixed workload: benchmarks-game (N×N, the Benchmarks Game's mandelbrot task; excludes --center, --zoom, --iterations, --color).")
    var preset: Preset?

    @Option(parsing: .unconditional, help: ArgumentHelp("Image size, WxH or N for N×N (sides 1…2147483647, the PNG limit; render streams large pictures in bands).", valueName: "size"))
    var size = "1200x800"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Centre of the view, re,im (default: -0.5,0).", valueName: "re,im"))
    var center: String?

    @Option(parsing: .unconditional, help: "Magnification; 1 shows 3 units across the shorter side. Finite and > 0 (default: 1).")
    var zoom: Double?

    @Option(parsing: .unconditional, help: "Iteration limit, 1…100000000 (default: 256; 50 for the preset).")
    var iterations: Int?

    @Option(help: "Colouring: bw (the seeds' black and white), gray, smooth (RGB palette), or histogram (the palette spread evenly over the image's escape values; two passes) (default: smooth; bw for the preset).")
    var color: ColorScheme?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Render the Julia set of this c instead of the Mandelbrot set, with the same view and colours (try -0.8,0.156).", valueName: "re,im"))
    var julia: String?

    @Option(parsing: .unconditional, help: "Render k×k samples per pixel and average them in linear light, for clean edges, 1…8 (default: 1).")
    var supersample: Int?

    @Option(help: ArgumentHelp("The palette of smooth and histogram colouring: a name from 'mandel palettes', or hex colours such as '#000764,#206bcb,#edffff,#ffaa00,#000200'.", valueName: "name|colours"))
    var palette: String?

    @Option(parsing: .unconditional, help: "Iterations per trip through the palette, > 0 (default: 64).")
    var paletteCycle: Double?

    @Option(parsing: .unconditional, help: "Where the palette starts, as a fraction of its cycle, 0…1 (default: 0).")
    var paletteOffset: Double?

    mutating func validate() throws {
        try validatePalette()
        let sides = try ArgumentParsing.dimensions(size, option: "--size", maximum: Limits.maximumSide)
        if let preset {
            let conflicting = [("--center", center != nil), ("--zoom", zoom != nil),
                               ("--iterations", iterations != nil), ("--color", color != nil),
                               ("--palette", palette != nil), ("--palette-cycle", paletteCycle != nil),
                               ("--palette-offset", paletteOffset != nil), ("--julia", julia != nil),
                               ("--supersample", supersample != nil)]
            if let (option, _) = conflicting.first(where: { $0.1 }) {
                throw ValidationError("--preset \(preset.rawValue) fixes the view; remove \(option)")
            }
            guard sides.width == sides.height else {
                throw ValidationError("--preset \(preset.rawValue) renders N×N; give --size N (got '\(size)')")
            }
            return
        }
        if let center { _ = try ArgumentParsing.center(center) }
        if let julia { _ = try ArgumentParsing.complexNumber(julia, option: "--julia") }
        if let supersample, !(1...8).contains(supersample) {
            throw ValidationError("--supersample must be from 1 to 8 samples per pixel along each axis (got \(supersample))")
        }
        if let zoom, !(zoom.isFinite && zoom > 0) {
            throw ValidationError("--zoom must be a finite number greater than 0 (got \(zoom))")
        }
        if let iterations, !(1...Limits.maximumIterations).contains(iterations) {
            throw ValidationError("--iterations must be from 1 to \(Limits.maximumIterations) (got \(iterations))")
        }
    }

    /// Refuses a picture too large to keep whole in memory, for the commands and outputs that do.
    ///
    /// - Parameter reason: Who needs the whole picture, such as "mandel compare keeps whole pictures in memory".
    func validateFitsInMemory(because reason: String) throws {
        let size = imageSize
        guard size.pixelCount <= Limits.maximumInMemoryPixels else {
            throw ValidationError(
                "--size \(size) has \(size.pixelCount) pixels; \(reason): at most \(Limits.maximumInMemoryPixels) (16384x16384)")
        }
    }

    /// The image size; valid after `validate()`.
    var imageSize: ImageSize {
        let sides = try! ArgumentParsing.dimensions(size, option: "--size", maximum: Limits.maximumSide)
        return ImageSize(width: sides.width, height: sides.height)
    }

    /// The region of the plane; valid after `validate()`.
    var region: RenderJob.Region {
        if preset == .benchmarksGame { return .benchmarksGame }
        return .view(viewport)
    }

    /// The centred view (the default one for a preset); valid after `validate()`.
    var viewport: Viewport {
        let point = center.map { try! ArgumentParsing.center($0) } ?? Self.defaultCenter
        return Viewport(centerReal: point.real, centerImaginary: point.imaginary, zoom: zoom ?? 1)
    }

    /// The Julia constant, if any; valid after `validate()`.
    var juliaConstant: JuliaConstant? {
        julia.map { text in
            let value = try! ArgumentParsing.complexNumber(text, option: "--julia")
            return JuliaConstant(real: value.real, imaginary: value.imaginary)
        }
    }

    /// Samples per pixel along each axis.
    var samplesPerAxis: Int { supersample ?? 1 }

    /// The iteration limit in force.
    var iterationLimit: Int { preset == .benchmarksGame ? 50 : (iterations ?? 256) }

    /// Checks the palette options: a valid palette, cycle and offset, and only with smooth colouring.
    private func validatePalette() throws {
        guard palette != nil || paletteCycle != nil || paletteOffset != nil else { return }
        if let color, color != .smooth, color != .histogram {
            throw ValidationError("--palette, --palette-cycle and --palette-offset colour --color smooth and histogram only (got --color \(color.rawValue))")
        }
        if color == .histogram, paletteCycle != nil {
            throw ValidationError("--palette-cycle sets iterations per trip through the palette, which histogram colouring does not use (it walks the palette once over the image's escape values); remove --palette-cycle or use --color smooth")
        }
        if let palette {
            do { _ = try PaletteSpecification.parse(palette) } catch { throw ValidationError("--palette: \(error.description)") }
        }
        if let paletteCycle, !(paletteCycle.isFinite && paletteCycle > 0) {
            throw ValidationError("--palette-cycle must be a number of iterations greater than 0 (got \(paletteCycle))")
        }
        if let paletteOffset, !(paletteOffset.isFinite && (0...1).contains(paletteOffset)) {
            throw ValidationError("--palette-offset must be a fraction from 0 to 1 (got \(paletteOffset))")
        }
    }

    /// Smooth colouring's palette; valid after `validate()`.
    var colorPalette: Palette {
        let base = palette.map { try! PaletteSpecification.parse($0) } ?? .classic
        return base.with(cycle: paletteCycle ?? base.cycle, offset: paletteOffset ?? 0)
    }

    /// The colouring in force.
    var colorScheme: ColorScheme { preset == .benchmarksGame ? .bw : (color ?? .smooth) }
}

extension ColorScheme: ExpressibleByArgument {}
