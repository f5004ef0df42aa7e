import Deadline
import Foundation
import Testing

@testable import MandelbrotCore

/// What a zoom's shared orbit tells a frame's memory check it holds: the orbit, and every
/// reference prepared for another frame (the next frame's table is built while this one renders).
@Suite struct ZoomOrbitMemoryTests {
    static let size = ImageSize(width: 32, height: 24)
    static let limit = 3000

    /// A frame's job at `zoom`, taking the shared orbit's precision, as `render --frames` makes it.
    static func frame(_ zoom: String, bits: Int) throws -> RenderJob {
        var view = try #require(DeepView(centerReal: "-0.1", centerImaginary: "0.1", zoom: zoom))
        view.sharedOrbitBits = bits
        var job = RenderJob(
            size: size, region: .view(view.approximateViewport), iterations: limit, workers: 2)
        job.deep = view
        return job
    }

    @Test("the held bytes count the orbit, and a reference prepared for another frame, not the frame's own")
    func preparedReferencesAreCounted() async throws {
        let deepest = try #require(DeepView(centerReal: "-0.1", centerImaginary: "0.1", zoom: "1e30"))
        let bits = deepest.precisionBits(for: Self.size)
        let this = try Self.frame("1e20", bits: bits)
        let next = try Self.frame("1e25", bits: bits)
        // Before the orbit is computed, it is counted at the limit's length, or, where it looks for
        // a period (as a zoom's does by default), as the address space it reserves: nothing.
        let whole = ZoomOrbit(centerReal: "-0.1", centerImaginary: "0.1", bits: bits, limit: Self.limit)
        #expect(whole.heldBytes(besides: this) == 16 * (Self.limit + 1))
        let ball = ZoomOrbit.PeriodBall(zoom: "1e30", farthestOffset: this.deepReach.farthestOffset)
        let orbit = ZoomOrbit(
            centerReal: "-0.1", centerImaginary: "0.1", bits: bits, limit: Self.limit, periodBall: ball)
        #expect(orbit.heldBytes(besides: this) == 0)
        let steps = try await withDeadline(waitingFor: "the orbit of -0.1+0.1i") {
            try #require(try orbit.computedSteps(cancellation: CancellationFlag()))
        }
        let orbitBytes = 16 * (steps.length + 1)
        #expect(steps.length > 10 && steps.length <= Self.limit)
        #expect(orbit.heldBytes(besides: this) == orbitBytes)
        orbit.prepare(next, buildsTable: true)
        let prepared = DeepMemory(steps: steps.length, usesTable: true).rendererBytes
        // The reference being built for the next frame is held beside this frame's own...
        #expect(orbit.heldBytes(besides: this) == orbitBytes + prepared)
        // ...and is the next frame's own reference when that frame's check runs.
        #expect(orbit.heldBytes(besides: next) == orbitBytes)
        // A prepared reference without its table holds its copy of the orbit only.
        let later = try Self.frame("1e28", bits: bits)
        orbit.prepare(later, buildsTable: false)
        #expect(orbit.heldBytes(besides: this) == orbitBytes + prepared + orbitBytes)
        // Once taken by its render, it is no longer the orbit's to count.
        let taken = orbit.takePrepared(
            view: try #require(next.deep), reach: next.deepReach, buildsTable: true)
        #expect(taken != nil)
        #expect(orbit.heldBytes(besides: this) == orbitBytes + orbitBytes)
        // At most two are held, the newest: two more prepared drop `later`, which no frame took (round
        // eight's prepared-never-dropped held every one for ever, and no test had prepared a third).
        let third = try Self.frame("1e29", bits: bits)
        let fourth = try Self.frame("1e30", bits: bits)
        orbit.prepare(third, buildsTable: false)
        #expect(orbit.heldBytes(besides: this) == orbitBytes + 2 * orbitBytes)
        orbit.prepare(fourth, buildsTable: false)
        #expect(orbit.heldBytes(besides: this) == orbitBytes + 2 * orbitBytes)
        #expect(orbit.takePrepared(view: try #require(later.deep), reach: later.deepReach, buildsTable: false) == nil)
        #expect(orbit.takePrepared(view: try #require(third.deep), reach: third.deepReach, buildsTable: false) != nil)
        #expect(orbit.takePrepared(view: try #require(fourth.deep), reach: fourth.deepReach, buildsTable: false) != nil)
        #expect(orbit.heldBytes(besides: this) == orbitBytes)
    }
}
