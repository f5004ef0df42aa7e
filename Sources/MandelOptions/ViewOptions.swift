package import ArgumentParser
package import MandelbrotCore

/// What to draw: size, centre, zoom, iterations and colours, or a preset.
package struct ViewOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "A fixed workload: benchmarks-game (N×N, the Benchmarks Game's mandelbrot task; excludes --center, "
                + "--zoom, --iterations, --color).")
    )
    package var preset: Preset?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Picture size, WxH or N for N×N (sides 1…2147483647, the PNG limit; render streams large pictures in "
                + "bands).",
            valueName: "size"),
        transform: { try ValueParsing.size($0) })
    package var size = PixelSize(width: 1200, height: 800)

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Centre of the view, re,im (default: -0.5,0).", valueName: "re,im"),
        transform: { try ValueParsing.complex($0) })
    package var center: ComplexValue?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Magnification; 1 shows 3 units across the shorter side: a decimal number > 0 of any length and "
                + "exponent up to 1e\(Limits.maximumZoomExponent), such as 1.333e1086, read exactly, as is --center "
                + "(default: 1)."),
        transform: { try ValueParsing.decimal($0) })
    package var zoom: DecimalValue?

    @Option(
        help: ArgumentHelp(
            "How pixels are computed: double (the vector kernel), or perturbation (one reference orbit in GNU MPFR, "
                + "the pixels as Double deltas from it, those the deltas cannot decide counted again in MPFR; any "
                + "depth) (default: perturbation from a zoom of 1e6, where Double's rounding gets some counts "
                + "wrong, or where it cannot separate neighbouring pixels, with a note; double otherwise).")
    )
    package var precision: PrecisionMode?

    @Option(
        help: ArgumentHelp(
            "With perturbation, skip iterations with the tables of bilinear and quadratic approximations: on, or "
                + "off to step every iteration (plain perturbation) (default: on).")
    )
    package var bla: OnOff?

    @Option(
        help: ArgumentHelp(
            "With perturbation, stop the reference orbit at the period of a nucleus found in the view, every pixel "
                + "rebasing onto the orbit's start at its end (the same counts): on, or off to compute it to its "
                + "escape or the iteration limit (default: on).")
    )
    package var period: OnOff?

    @Option(
        parsing: .unconditional, help: "Iteration limit, 1…4294967294 (default: 256; 50 for the preset).",
        transform: { try ValueParsing.integer($0, allowed: "from 1 to \(Limits.maximumIterations)") })
    package var iterations: Int?

    @Option(
        help: ArgumentHelp(
            "Colouring: bw (black and white, the book's picture), gray, smooth (RGB palette), or histogram (the "
                + "palette spread evenly over the picture's escape values; two passes) (default: smooth; bw for the "
                + "preset).")
    )
    package var color: ColorScheme?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Render the Julia set of this c instead of the Mandelbrot set, with the same view and colours (try "
                + "-0.8,0.156).",
            valueName: "re,im"),
        transform: { try ValueParsing.complex($0) })
    package var julia: ComplexValue?

    @Option(
        parsing: .unconditional,
        help: "Render k×k samples per pixel and average them in linear light, for clean edges, 1…8 (default: 1).",
        transform: { try ValueParsing.integer($0, allowed: "from 1 to 8") })
    package var supersample: Int?

    @Option(
        help: ArgumentHelp(
            "The palette of smooth and histogram colouring: a name from 'mandel palettes', or hex colours such "
                + "as '#000764,#206bcb,#edffff,#ffaa00,#000200'.",
            valueName: "name|colours"),
        transform: { text in
            do { return try PaletteSpecification.parse(String(text.trimmingBlanks)) } catch let invalid
                as PaletteSpecification.Invalid
            {
                throw ValueParsing.Refusal(description: invalid.description)
            }
        })
    package var palette: Palette?

    @Option(
        parsing: .unconditional, help: "Iterations per trip through the palette, 0.001…42949672940 (default: 64).",
        transform: { try ValueParsing.real($0) })
    package var paletteCycle: Double?

    @Option(
        parsing: .unconditional, help: "Where the palette starts, as a fraction of its cycle, 0…1 (default: 0).",
        transform: { try ValueParsing.real($0) })
    package var paletteOffset: Double?

    package static let defaultCenter = ComplexValue(real: -0.5, imaginary: 0)

    /// A preset's checks are left to the command (``validatePreset()``), whose own checks come after
    /// these: `serve` refuses every preset, whatever size comes with it.
    package mutating func validate() throws {
        if preset != nil { return }
        try validate(zoomOption: "--zoom")
    }

    /// A preset's checks: no view option beside it, and a square size. Render, compare and sweep call
    /// it first in their `validate()`; nothing is checked without a preset.
    package func validatePreset() throws {
        guard let preset else { return }
        let conflicting = [
            ("--center", center != nil), ("--zoom", zoom != nil),
            ("--iterations", iterations != nil), ("--color", color != nil),
            ("--palette", palette != nil), ("--palette-cycle", paletteCycle != nil),
            ("--palette-offset", paletteOffset != nil), ("--julia", julia != nil),
            ("--supersample", supersample != nil), ("--precision", precision != nil), ("--bla", bla != nil),
            ("--period", period != nil),
        ]
        if let (option, _) = conflicting.first(where: { $0.1 }) {
            throw ValidationError("--preset \(preset.rawValue) fixes the view; remove \(option)")
        }
        guard size.width == size.height else {
            throw ValidationError("--preset \(preset.rawValue) renders N×N; give --size N (got '\(size)')")
        }
    }

    /// The checks of `validate()`, whose messages name the zoom's option `zoomOption` (`--zoom-to`
    /// checks the last frame's view with the same rules), a preset's included.
    package func validate(zoomOption: String) throws {
        if preset != nil {
            try validatePreset()
            return
        }
        try validatePalette()
        if let supersample, !(1...Limits.maximumSupersampling).contains(supersample) {
            throw ValidationError(
                "--supersample must be from 1 to 8 samples per pixel along each axis (got \(supersample))")
        }
        if let iterations, !(1...Limits.maximumIterations).contains(iterations) {
            throw ValidationError("--iterations must be from 1 to \(Limits.maximumIterations) (got \(iterations))")
        }
        if let zoom, !(zoom.value > 0) {
            // A positive zoom whose Double is 0: its picture is wider than any Double.
            if DeepView.decimalExponent(ofZoom: zoom.text) < 0 {
                throw ValidationError(
                    "\(zoomOption) \(zoom.text) gives a \(size) picture a pixel step of inf; choose a zoom nearer 1")
            }
            throw ValidationError("\(zoomOption) must be a finite number greater than 0 (got \(zoom.text))")
        }
        // For every view, perturbation's too: its report and plan read the centre as Doubles.
        if let center, !center.isFinite {
            throw ValidationError(
                "--center \(center.realText),\(center.imaginaryText) is past the largest Double: each part must be "
                    + "within ±1.8e308")
        }
        if let zoom, zoom.value > 1, precision != .double,
            !(DeepView.decimalExponent(ofZoom: zoom.text) <= Double(Limits.maximumZoomExponent))
        {
            throw ValidationError(
                "\(zoomOption) \(zoom.text) is deeper than mandel renders: at most 1e\(Limits.maximumZoomExponent)")
        }
        if deepView != nil {
            guard julia == nil else {
                throw ValidationError(
                    "--julia renders with Double only, to a zoom of about 1e13; remove --julia or --precision "
                        + "perturbation, or zoom out")
            }
            return
        }
        if precision == nil, let option = bla != nil ? "--bla" : period != nil ? "--period" : nil {
            throw ValidationError(
                "\(option) applies to --precision perturbation; remove it or add --precision perturbation")
        }
        if let julia, !julia.isFinite {
            throw ValidationError(
                "--julia \(julia.realText),\(julia.imaginaryText) is past the largest Double: each part must be "
                    + "within ±1.8e308")
        }
        if let zoom, !zoom.value.isFinite {
            // Only a view that keeps Double gets here: a deeper one is rendered by perturbation.
            throw ValidationError(
                "\(zoomOption) \(zoom.text) is past the largest Double, 1.8e308, which "
                    + (julia != nil ? "--julia keeps" : "--precision double keeps; remove it to render by perturbation")
            )
        }
        // Every sample's coordinates must be finite numbers a pixel step apart.
        let step = viewport.pixelSpacing(for: sampleGridSize)
        guard step.isFinite, step > 0 else {
            throw ValidationError(
                "\(zoomOption) \(viewport.zoom) gives a \(size) picture a pixel step of \(step); choose a zoom nearer 1"
            )
        }
        guard viewport.cornersAreFinite(for: sampleGridSize) else {
            throw ValidationError(
                "\(zoomOption) \(viewport.zoom) at --center \(viewport.centerReal),\(viewport.centerImaginary) puts the "
                    + "picture's corners "
                    + "beyond the largest number a Double holds (they are not finite); choose a zoom nearer 1 or a "
                    + "centre nearer 0"
            )
        }
    }

    /// Refuses a picture too large to keep whole in memory, for the commands and outputs that do.
    ///
    /// - Parameters:
    ///   - reason: Who needs the whole picture, such as "mandel compare keeps whole pictures in memory".
    ///   - pictures: How many such pictures are kept at once (a sweep keeps one a point).
    package func validateFitsInMemory(because reason: String, pictures: Int = 1) throws {
        let (total, overflow) = size.pixelCount.multipliedReportingOverflow(by: max(1, pictures))
        guard overflow || total > Limits.maximumInMemoryPixels else { return }
        let count = pictures > 1 ? ", \(pictures) pictures of them" : ""
        let limit = pictures > 1 ? " pixels in all" : ""
        throw ValidationError(
            "--size \(size) has \(size.pixelCount) pixels\(count); \(reason): at most "
                + "\(Limits.maximumInMemoryPixels)\(limit) (16384x16384)"
        )
    }

    /// The region of the plane (a deep view rounded to `Double`s, for reports).
    package var region: RenderJob.Region {
        if preset == .benchmarksGame { return .benchmarksGame }
        return .view(deepView?.approximateViewport ?? viewport)
    }

    /// The centred view (the default one for a preset); valid after `validate()`.
    package var viewport: Viewport {
        let point = center ?? Self.defaultCenter
        return Viewport(centerReal: point.real, centerImaginary: point.imaginary, zoom: zoom?.value ?? 1)
    }

    /// The view rendered by perturbation: with `--precision perturbation`, or by default from a zoom
    /// of 10⁶ (``DeepView/defaultPerturbationZoomExponent``) or where `Double` cannot separate
    /// neighbouring pixels of a zoom above 1; nil for `Double`.
    package var deepView: DeepView? {
        guard preset == nil, precision != .double else { return nil }
        // A Julia set keeps Double (and its warning) unless perturbation is asked for, which it then refuses.
        guard precision == .perturbation || (julia == nil && doubleCannotResolve) else { return nil }
        let point = center ?? Self.defaultCenter
        let realText = point.realText.isEmpty ? "\(point.real)" : point.realText
        let imaginaryText = point.imaginaryText.isEmpty ? "\(point.imaginary)" : point.imaginaryText
        guard
            var view = DeepView(
                centerReal: realText, centerImaginary: imaginaryText, zoom: zoom?.text ?? "1", usesTable: bla != .off)
        else { return nil }
        view.detectsPeriod = period != .off
        return view
    }

    /// Whether a zoom above 1 is too deep for `Double`: the zoom itself overflows, it is 10⁶ or
    /// deeper (where Double's rounding gets some counts wrong), or neighbouring samples coincide.
    private var doubleCannotResolve: Bool {
        let zoomValue = zoom?.value ?? 1
        guard zoomValue > 1 else { return false }
        guard zoomValue.isFinite else { return true }
        if let zoom, DeepView.decimalExponent(ofZoom: zoom.text) >= DeepView.defaultPerturbationZoomExponent {
            return true
        }
        let point = center ?? Self.defaultCenter
        guard point.isFinite else { return false }
        let view = Viewport(centerReal: point.real, centerImaginary: point.imaginary, zoom: zoomValue)
        let step = view.pixelSpacing(for: sampleGridSize)
        return step == 0 || (step.isFinite && view.hasCoincidentSamples(for: sampleGridSize))
    }

    /// The size of the grid of samples: the picture's, times the supersampling along each axis.
    package var sampleGridSize: PixelSize {
        PixelSize(width: size.width * samplesPerAxis, height: size.height * samplesPerAxis)
    }

    /// The Julia constant, if any.
    package var juliaConstant: JuliaConstant? { julia.map { JuliaConstant(real: $0.real, imaginary: $0.imaginary) } }

    /// Samples per pixel along each axis.
    package var samplesPerAxis: Int { supersample ?? 1 }

    /// The iteration limit in force.
    package var iterationLimit: Int { preset == .benchmarksGame ? 50 : (iterations ?? 256) }

    /// Checks the palette options: a valid cycle and offset, and only with the colourings that use them.
    private func validatePalette() throws {
        guard palette != nil || paletteCycle != nil || paletteOffset != nil else { return }
        if let color, color != .smooth, color != .histogram {
            throw ValidationError(
                "--palette, --palette-cycle and --palette-offset colour --color smooth and histogram only (got --color "
                    + "\(color.rawValue))"
            )
        }
        if color == .histogram, paletteCycle != nil {
            throw ValidationError(
                "--palette-cycle sets iterations per trip through the palette, which histogram colouring does "
                    + "not use (it walks the palette once over the picture's escape values); remove --palette-cycle "
                    + "or use --color smooth"
            )
        }
        if let paletteCycle, !Limits.paletteCycle.contains(paletteCycle) {
            throw ValidationError(
                "--palette-cycle must be a number of iterations from 0.001 to 1000000000 (got \(paletteCycle))")
        }
        if let paletteOffset, !(0...1).contains(paletteOffset) {
            throw ValidationError("--palette-offset must be a fraction from 0 to 1 (got \(paletteOffset))")
        }
    }

    /// Smooth colouring's palette.
    package var colorPalette: Palette {
        let base = palette ?? .classic
        return base.with(cycle: paletteCycle ?? base.cycle, offset: paletteOffset ?? 0)
    }

    /// The colouring in force.
    package var colorScheme: ColorScheme { preset == .benchmarksGame ? .bw : (color ?? .smooth) }
}
