import Foundation
import ImageFiles
import ProcessTestSupport
import Testing

/// What the outputs say a deep view is: the centre and zoom as given, not their nearest `Double`s.
@Suite("mandel at depth: the view as reported")
struct DeepViewTextTests {
    /// A centre with more digits than a `Double` holds, and a zoom past the largest `Double`.
    static let center = "-1.76910833040747728089230624355777848356006391186,-0.00902068805707261838"
    static let zoom = "5.333333333333333333333333333333333333333e533"

    @Test("the PNG's mandel.center and mandel.zoom are the view's text, not 1.7976931348623157e+308")
    func pictureTexts() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            [
                "render", "--center", Self.center, "--zoom", Self.zoom, "--iterations", "200", "--size", "4", "-o",
                "d.png",
            ],
            in: folder, deadline: 60)
        #expect(result.status == 0, "\(result.standardError)")
        let image = try PNGImage(contentsOf: folder + "/d.png")
        #expect(image.texts["mandel.center"] == Self.center)
        #expect(image.texts["mandel.zoom"] == Self.zoom)
    }

    @Test("compare's and sweep's first line give the view's text")
    func headerTexts() throws {
        let view = [
            "--center", Self.center, "--zoom", Self.zoom, "--iterations", "200", "--size", "4", "--runs", "1",
            "--warmup", "0",
        ]
        for command in [["compare", "--strategies", "gcd"], ["sweep", "--workers", "1,2", "--strategies", "gcd"]] {
            let result = try MandelProcess.run(command + view, deadline: 60)
            #expect(result.status == 0, "\(result.standardError)")
            let first = result.standardOutput.split(separator: "\n").first ?? ""
            #expect(first.contains("center \(Self.center), zoom \(Self.zoom),"), "\(first)")
        }
    }

    @Test("the JSON of render and compare gives the view's text, and no zoom number past the largest Double")
    func jsonTexts() throws {
        let view = ["--center", Self.center, "--zoom", Self.zoom, "--iterations", "200", "--size", "4"]
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let render = try MandelProcess.run(["render", "--json", "-o", "d.png"] + view, in: folder, deadline: 60)
        #expect(render.status == 0, "\(render.standardError)")
        let compare = try MandelProcess.run(
            ["compare", "--strategies", "gcd", "--runs", "1", "--warmup", "0", "--json", "-"] + view, deadline: 60)
        #expect(compare.status == 0, "\(compare.standardError)")
        let renderObject = try #require(
            JSONSerialization.jsonObject(with: Data(render.standardOutput.utf8)) as? [String: Any])
        let compareObject = try #require(
            JSONSerialization.jsonObject(with: Data(compare.standardOutput.utf8)) as? [String: Any])
        let workload = try #require(compareObject["workload"] as? [String: Any])
        for (name, object) in [("render", renderObject), ("compare", workload)] {
            #expect(object["center_text"] as? String == Self.center, "\(name)")
            #expect(object["zoom_text"] as? String == Self.zoom, "\(name)")
            // Not 1.7976931348623157e+308, the viewport's clamp, which is not this view's zoom.
            #expect(object["zoom"] == nil || object["zoom"] is NSNull, "\(name): \(object["zoom"] ?? "")")
        }
        // Where a Double holds the zoom, the number stays, and the texts are the Doubles'.
        let shallow = try MandelProcess.run(
            ["render", "--json", "--size", "8", "--zoom", "2", "-o", "s.png"], in: folder, deadline: 60)
        let shallowObject = try #require(
            JSONSerialization.jsonObject(with: Data(shallow.standardOutput.utf8)) as? [String: Any])
        #expect(shallowObject["zoom"] as? Double == 2)
        #expect(shallowObject["zoom_text"] as? String == "2.0")
    }

    @Test("the note says perturbation was asked for where Double resolves the view, and why it was chosen elsewhere")
    func noteSaysWhy() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let views: [([String], String)] = [
            (["--precision", "perturbation"], "note: --precision perturbation: Double resolves --zoom 1 here"),
            (["--center", "-1.5,0", "--zoom", "1e500"], "note: --zoom 1e500 is past what Double resolves"),
        ]
        for (view, note) in views {
            let result = try MandelProcess.run(
                ["render", "--size", "16", "--iterations", "100", "-o", "n.png"] + view, in: folder, deadline: 60)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.firstErrorLine.contains(note), "\(result.firstErrorLine)")
        }
    }

    @Test("join refuses parts of two deep pictures that differ past a Double's digits: 65, nothing written")
    func joinTellsDeepPicturesApart() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Each pair's Doubles are equal (1.8e308; the centres' first 17 digits): on the code that wrote
        // them into the parts, join put the two pictures' rows together into one file (exit 0).
        let pairs = [
            (["--center", "-1.76,0.01", "--zoom", "1e500"], ["--center", "-1.76,0.01", "--zoom", "1e501"]),
            (
                ["--center", "-1.76000000000000000000000001,0.01", "--zoom", "1e30"],
                ["--center", "-1.76000000000000000000000002,0.01", "--zoom", "1e30"]
            ),
        ]
        for (first, second) in pairs {
            for (index, view) in [(0, first), (1, second)] {
                let result = try MandelProcess.run(
                    ["render", "--size", "32", "--iterations", "200", "--part", "\(index)/2", "-o", "p\(index).mpart"]
                        + view, in: folder, deadline: 60)
                #expect(result.status == 0, "\(result.standardError)")
            }
            let joined = try MandelProcess.run(["join", "p0.mpart", "p1.mpart", "-o", "j.png"], in: folder)
            expectRefusal(joined, status: 65, mentioning: "parts of different pictures")
            #expect(contents(of: folder) == ["p0.mpart", "p1.mpart"], "\(contents(of: folder))")
        }
    }
}
