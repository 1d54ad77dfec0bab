import CLCMS2

/// 16-bit gray to sRGB RGB8 for every one of the 65,536 gray samples, worked out once per profile. LittleCMS
/// optimises a 16-bit gray transform into a curve of a few dozen points, which is linear through the darkest
/// 3% and misses there by up to 10 levels; every sample through the unoptimised transform is exact, and the
/// table makes each pixel one look-up.
struct GrayWideLookup: Sendable {
    /// R, G, B for each big-endian gray sample value.
    private let table: [UInt8]

    /// Nil when LittleCMS cannot build the unoptimised transform from `profile`.
    init?(profile: cmsHPROFILE, sRGB: cmsHPROFILE) {
        guard
            let exact = cmsCreateTransform(
                profile, trove_lcms_gray16, sRGB, trove_lcms_rgb8, cmsUInt32Number(INTENT_PERCEPTUAL),
                cmsUInt32Number(cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE))
        else { return nil }
        defer { cmsDeleteTransform(exact) }
        let samples = (0...65535).map { UInt16($0) }
        var table = [UInt8](repeating: 0, count: 3 * 65536)
        samples.withUnsafeBufferPointer { input in
            table.withUnsafeMutableBufferPointer { output in
                cmsDoTransform(exact, input.baseAddress, output.baseAddress, 65536)
            }
        }
        self.table = table
    }

    /// RGBA16 big-endian pixels whose R = G = B (a gray sample repeated) to RGBA8 in place, alpha rounded as
    /// PNG's 16-to-8 rounding does. Pixel i is read before its output (at 4i, never past 8i) is written.
    func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        table.withUnsafeBufferPointer { table in
            for index in 0..<count {
                let source = pixels + 8 * index
                let gray = 3 * (Int(source[0]) << 8 | Int(source[1]))
                let alpha = Int(source[6]) << 8 | Int(source[7])
                let target = pixels + 4 * index
                target[0] = table[gray]
                target[1] = table[gray + 1]
                target[2] = table[gray + 2]
                target[3] = UInt8((alpha * 255 + 32767) / 65535)
            }
        }
    }
}
