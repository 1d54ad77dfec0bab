import Testing
import TroveTransformers

@Suite struct ResizeIdentifierTests {
    @Test func namesEveryParameter() {
        let resize = ResizeTransformer(width: 96, height: 64, mode: .stretch, filter: .bilinear, upscale: false)
        #expect(resize.identifier == "resize(w=96,h=64,mode=stretch,filter=bilinear,upscale=false)")
        #expect(
            ResizeTransformer(width: nil, height: 10, filter: .lanczos3, upscale: true).identifier
                == "resize(w=auto,h=10,mode=fit,filter=lanczos3,upscale=true)")
    }

    @Test func differsWhenAnyParameterDiffers() {
        let variants =
            [
                ResizeTransformer(width: 96, height: 64),
                ResizeTransformer(width: 97, height: 64),
                ResizeTransformer(width: 96, height: 65),
                ResizeTransformer(width: 96, height: nil),
                ResizeTransformer(width: nil, height: 96),
                ResizeTransformer(width: nil, height: 64),
                ResizeTransformer(width: 64, height: 96)
            ] + ResizeTransformer.Mode.allCases.dropFirst().map { ResizeTransformer(width: 96, height: 64, mode: $0) }
            + ResizeTransformer.Filter.allCases.filter { $0 != .bilinear }
            .map { ResizeTransformer(width: 96, height: 64, filter: $0) }
            + [ResizeTransformer(width: 96, height: 64, upscale: true)]
        let identifiers = variants.map(\.identifier)
        #expect(Set(identifiers).count == variants.count, "\(identifiers)")
    }

    @Test func equalWhenParametersAreEqual() {
        let a = ResizeTransformer(width: 120, height: 80, mode: .fill, filter: .bicubic, upscale: true)
        let b = ResizeTransformer(width: 120, height: 80, mode: .fill, filter: .bicubic, upscale: true)
        #expect(a.identifier == b.identifier)
        // The defaults spelled out give the same identifier as the defaults left out.
        #expect(
            ResizeTransformer(width: 5, height: 6).identifier
                == ResizeTransformer(width: 5, height: 6, mode: .fit, filter: .bilinear, upscale: false).identifier)
    }
}
