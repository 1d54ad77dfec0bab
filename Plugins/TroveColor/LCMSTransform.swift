import CLCMS2
import TroveCore

/// One LittleCMS transform to sRGB, in place over four-byte pixels (16-bit samples through a row of RGBA8 of
/// its own, as lcms does not promise in-place work between sample sizes). Made with `cmsFLAGS_NOCACHE`, which
/// drops lcms's one-pixel cache, the transform's only mutable state: so threads may share it
/// (`@unchecked Sendable`).
final class LCMSTransform: ColorTransform, @unchecked Sendable {
    private let handle: cmsHTRANSFORM
    private let samples: ColorSamples
    /// For 16-bit gray samples: every value's result, which `handle`'s optimised curve would miss in the darks.
    private let grayWide: GrayWideLookup?

    init(handle: cmsHTRANSFORM, samples: ColorSamples, grayWide: GrayWideLookup? = nil) {
        self.handle = handle
        self.samples = samples
        self.grayWide = grayWide
    }

    deinit {
        cmsDeleteTransform(handle)
    }

    func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        if samples == .rgba16BigEndian { return applyWide(pixels, count: count) }
        // cmsDoTransform counts pixels in 32 bits: a huge run goes in slices.
        var done = 0
        while done < count {
            let slice = min(count - done, 1 << 24)
            let start = pixels + done * 4
            cmsDoTransform(handle, start, start, cmsUInt32Number(slice))
            done += slice
        }
        if samples == .cmyk8 {
            // lcms leaves the output's extra channel alone: in place, that byte still holds K.
            for index in 0..<count { pixels[index * 4 + 3] = 255 }
        }
    }

    /// RGBA16 (big-endian) to RGBA8, a slice at a time through a buffer of its own; each slice's output lands
    /// before any input not yet read, so the results can go straight back over the source.
    private func applyWide(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        if let grayWide { return grayWide.apply(pixels, count: count) }
        let sliceLength = min(count, 4096)
        guard sliceLength > 0 else { return }
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: sliceLength * 4)
        defer { output.deallocate() }
        var done = 0
        while done < count {
            let slice = min(count - done, sliceLength)
            let source = pixels + done * 8
            cmsDoTransform(handle, source, output, cmsUInt32Number(slice))
            for index in 0..<slice {
                // lcms leaves the extra channel alone: alpha is rounded here, as PNG's 16-to-8 rounding does.
                let alpha = Int(source[index * 8 + 6]) << 8 | Int(source[index * 8 + 7])
                output[index * 4 + 3] = UInt8((alpha * 255 + 32767) / 65535)
            }
            (pixels + done * 4).update(from: output, count: slice * 4)
            done += slice
        }
    }
}
