import CLCMS2
import TroveCore

/// One LittleCMS transform to sRGB, in place over four-byte pixels. Made with `cmsFLAGS_NOCACHE`, which drops
/// lcms's one-pixel cache, the transform's only mutable state: so threads may share it (`@unchecked Sendable`).
final class LCMSTransform: ColorTransform, @unchecked Sendable {
    private let handle: cmsHTRANSFORM
    private let samples: ColorSamples

    init(handle: cmsHTRANSFORM, samples: ColorSamples) {
        self.handle = handle
        self.samples = samples
    }

    deinit {
        cmsDeleteTransform(handle)
    }

    func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
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
}
