extension YCbCrPlanes {
    /// The planes as an opaque RGBA8 image of `sourceFormat`: JFIF's full-range YCbCr to RGB in 16-bit fixed
    /// point, each chroma sample used for the 2x2 pixels it covers. What a planar result hands back as its
    /// image, at the output's size: the colour conversion the planar path saves is the source-sized one.
    package func rgbaImage(sourceFormat: ImageFormat) -> Image {
        let width = width, height = height, chromaWidth = chromaWidth
        // JFIF: R = Y + 1.402 Cr', G = Y - 0.344136 Cb' - 0.714136 Cr', B = Y + 1.772 Cb', with 65536 as one.
        let crToR: Int32 = 91_881, cbToG: Int32 = -22_554, crToG: Int32 = -46_802, cbToB: Int32 = 116_130
        let half: Int32 = 32_768
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            y.withUnsafeBufferPointer { y in
                cb.withUnsafeBufferPointer { cb in
                    cr.withUnsafeBufferPointer { cr in
                        guard let out = buffer.baseAddress, let y = y.baseAddress, let cb = cb.baseAddress,
                            let cr = cr.baseAddress
                        else { return }
                        for row in 0..<height {
                            let luma = y + row * width, blues = cb + (row / 2) * chromaWidth
                            let reds = cr + (row / 2) * chromaWidth, pixel = out + row * width * 4
                            // Wrapping arithmetic: the values cannot overflow, and checked operations would
                            // keep the loop from vectorising.
                            for x in 0..<width {
                                let l = Int32(luma[x]) &<< 16 &+ half
                                let blue = Int32(blues[x &>> 1]) &- 128, red = Int32(reds[x &>> 1]) &- 128
                                pixel[4 &* x] = Self.clamped((l &+ crToR &* red) &>> 16)
                                pixel[4 &* x &+ 1] = Self.clamped((l &+ cbToG &* blue &+ crToG &* red) &>> 16)
                                pixel[4 &* x &+ 2] = Self.clamped((l &+ cbToB &* blue) &>> 16)
                                pixel[4 &* x &+ 3] = 255
                            }
                        }
                        initialized = width * height * 4
                    }
                }
            }
        }
        return Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels,
            sourceFormat: sourceFormat)
    }

    @inline(__always)
    private static func clamped(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(value, 0), 255))
    }
}
