import MandelOptions
package import MandelbrotCore

/// A view's centre and zoom as every report states them (the PNG's text chunks, `compare`'s and
/// `sweep`'s header): for a view rendered by perturbation, the decimal text it was given, read
/// exactly, since a `Double` holds neither its digits nor a zoom past 1.8e308; the `Double`s otherwise.
package enum ViewText {
    /// `re,im`.
    package static func center(of job: RenderJob, _ viewport: Viewport) -> String {
        guard let deep = job.deep else { return "\(viewport.centerReal),\(viewport.centerImaginary)" }
        return "\(deep.centerReal),\(deep.centerImaginary)"
    }

    /// The zoom.
    package static func zoom(of job: RenderJob, _ viewport: Viewport) -> String { job.deep?.zoom ?? "\(viewport.zoom)" }

    /// The zoom as a `Double` for the JSON's number: nil past the largest `Double`, where the
    /// viewport holds it clamped to 1.8e308, which is not the view's zoom (its text is).
    package static func zoomNumber(of job: RenderJob, _ viewport: Viewport) -> Double? {
        job.deep.flatMap { Double($0.zoom)?.isFinite } == false ? nil : viewport.zoom
    }
}
