import Testing

extension ExplorerPageTests {
    /// A centre of 300 digits after the point in each part, the same every run.
    static let longCentre: String = {
        let digits = (0..<300).map { String(($0 * $0 * 7 + $0 * 3 + 1) % 10) }.joined()
        let others = (0..<300).map { String(($0 * 13 + 5) % 10) }.joined()
        return "-0." + digits + ",0." + others
    }()

    @Test("the page's decimal arithmetic is exact: pans, zooms and zooms about a point, to 1,086 digits")
    func decimalArithmeticIsExact() async throws {
        let deep = try DeepLocation.named("1e1086")
        let deepCentre = deep.re + "," + deep.im
        try await Explorer.with { explorer in
            try await explorer.open()

            // centreAfterPan(centre, zoom, [W, H], dx, dy)
            let pans: [(centre: String, zoom: String, size: (Int, Int), dx: String, dy: String)] = [
                ("-0.5,0", "1", (1280, 800), "100", "-50"),
                // Ties at the 8th digit after the point: to the even digit, 8 kept and 1 raised.
                ("-0.123456785,0.000000015", "1", (1280, 800), "0.5", "-2"),
                // A part that does not move keeps its digits, more of them than a moved part keeps.
                ("0.1,0.000000015", "1", (1280, 800), "3", "0"),
                (deepCentre, "1.333e1086", (1280, 800), "37", "-1.5"),
                (Self.longCentre, "7.5e290", (1281, 799), "0.5", "-1023"),
                // Rounded to 108 of the centre's 300 digits.
                (Self.longCentre, "3e100", (1280, 800), "-640", "400"),
            ]
            for pan in pans {
                let page: String = try await explorer.browser.execute(
                    "return mandelDecimal.centreAfterPan(...arguments)",
                    [pan.centre, pan.zoom, [pan.size.0, pan.size.1], pan.dx, pan.dy])
                let exact = ViewGeometry.centreAfterPan(
                    centre: pan.centre, zoom: pan.zoom, size: pan.size, dx: pan.dx, dy: pan.dy)
                #expect(page == exact, "centreAfterPan(\(pan.centre.prefix(40))…, \(pan.zoom), \(pan.dx), \(pan.dy))")
            }
            // The arithmetic here, against results worked by hand.
            #expect(
                ViewGeometry.centreAfterPan(centre: "-0.5,0", zoom: "1", size: (1280, 800), dx: "100", dy: "-50")
                    == "-0.125,0.1875")
            #expect(
                ViewGeometry.centreAfterPan(
                    centre: "-0.123456785,0.000000015", zoom: "1", size: (1280, 800), dx: "0.5", dy: "-2")
                    == "-0.12158178,0.00750002")

            // zoomBy(zoom, factor), in the form a zoom is written: scientific from 1e21 and up to 1e-7.
            let zooms: [(zoom: String, factor: String, exact: String)] = [
                ("1.333e1086", "2", "2.666e1086"), ("1.333e1086", "0.5", "6.665e1085"),
                ("1e21", "0.5", "500000000000000000000"), ("5e20", "2", "1e21"), ("0.001", "0.5", "0.0005"),
                ("1.5e-7", "2", "3e-7"), ("2e-7", "0.5", "1e-7"), ("3e-7", "0.5", "1.5e-7"),
                ("1.333333333333333333333333333333333333333e50", "2", "2.666666666666666666666666666666666666666e50"),
            ]
            for zoom in zooms {
                let page: String = try await explorer.browser.execute(
                    "return mandelDecimal.zoomBy(...arguments)", [zoom.zoom, zoom.factor])
                #expect(page == zoom.exact, "zoomBy(\(zoom.zoom), \(zoom.factor))")
                #expect(ViewGeometry.zoomBy(zoom.zoom, zoom.factor) == zoom.exact)
            }

            // centreAfterZoom(centre, zoom, [W, H], x, y, factor, offset)
            let aboutPoints:
                [(
                    centre: String, zoom: String, size: (Int, Int), x: String, y: String, factor: String,
                    offset: (Int, Int)
                )] = [
                    ("-0.5,0", "1", (1280, 800), "640", "400", "2", (0, 0)),
                    ("-0.5,0", "1", (1280, 800), "0", "0", "0.5", (-256, 512)),
                    (deepCentre, "1.333e1086", (1280, 800), "100", "700", "2", (512, -256)),
                    (deepCentre, "1.333e1086", (1280, 800), "1279", "1", "0.5", (0, 0)),
                    (Self.longCentre, "7.5e290", (1281, 799), "640.5", "17", "0.5", (-3, 1024)),
                    (Self.longCentre, "7.5e290", (1281, 799), "3", "798", "2", (100_000, -7)),
                ]
            struct Zoomed: Decodable, Equatable {
                let center: String
                let zoom: String
            }
            for about in aboutPoints {
                let page: Zoomed = try await explorer.browser.execute(
                    "return mandelDecimal.centreAfterZoom(...arguments)",
                    [
                        about.centre, about.zoom, [about.size.0, about.size.1], about.x, about.y, about.factor,
                        [about.offset.0, about.offset.1],
                    ])
                let exact = ViewGeometry.centreAfterZoom(
                    centre: about.centre, zoom: about.zoom, size: about.size, x: about.x, y: about.y,
                    factor: about.factor, offset: about.offset)
                #expect(
                    page == Zoomed(center: exact.center, zoom: exact.zoom),
                    "centreAfterZoom(\(about.centre.prefix(40))…, \(about.zoom), (\(about.x), \(about.y)), ×\(about.factor))"
                )
            }
            #expect(
                ViewGeometry.centreAfterZoom(
                    centre: "-0.5,0", zoom: "1", size: (1280, 800), x: "640", y: "400", factor: "2", offset: (0, 0))
                    == ("-0.5,0", "2"))
            // The top-left corner at zoom 1 (step 0.00375) is -0.5 − 2.4, 0 + 1.5; zoomed out about it, the
            // corner stays and the centre moves 640 and 400 pixels of 0.0075 from it.
            #expect(
                ViewGeometry.centreAfterZoom(
                    centre: "-0.5,0", zoom: "1", size: (1280, 800), x: "0", y: "0", factor: "0.5", offset: (0, 0))
                    == ("1.9,-1.5", "0.5"))
        }
    }
}
