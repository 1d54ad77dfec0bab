extension YCbCrPlanes {
    /// The planes as an opaque RGBA8 image of `sourceFormat`: the chroma upsampled to the luma's size as
    /// libjpeg-turbo's decoder does by default ("fancy" upsampling: each pixel weighs the chroma sample it lies
    /// in 3 to 1 against the next one toward it, each way, for centre-sited samples), then JFIF's full-range
    /// YCbCr to RGB. What a planar result hands back as its image, at the output's size: the colour conversion
    /// the planar path saves is the source-sized one.
    package func rgbaImage(sourceFormat: ImageFormat) -> Image {
        let width = width, height = height, chromaWidth = chromaWidth, chromaHeight = chromaHeight
        var columnSums = [Int32](repeating: 0, count: 2 * chromaWidth)
        var upsampled = [UInt8](repeating: 0, count: 2 * width)
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            y.withUnsafeBufferPointer { y in
                cb.withUnsafeBufferPointer { cb in
                    cr.withUnsafeBufferPointer { cr in
                        columnSums.withUnsafeMutableBufferPointer { sums in
                            upsampled.withUnsafeMutableBufferPointer { chroma in
                                guard let out = buffer.baseAddress, let y = y.baseAddress, let cb = cb.baseAddress,
                                    let cr = cr.baseAddress, let sums = sums.baseAddress,
                                    let chroma = chroma.baseAddress
                                else { return }
                                let blues = chroma, reds = chroma + width
                                for row in 0..<height {
                                    // The chroma row this pixel row lies in, and the next one toward it.
                                    let near = row / 2
                                    let far = min(max(row % 2 == 0 ? near - 1 : near + 1, 0), chromaHeight - 1)
                                    Self.upsample(
                                        cb + near * chromaWidth, cb + far * chromaWidth, width: width,
                                        chromaWidth: chromaWidth, sums: sums, into: blues)
                                    Self.upsample(
                                        cr + near * chromaWidth, cr + far * chromaWidth, width: width,
                                        chromaWidth: chromaWidth, sums: sums + chromaWidth, into: reds)
                                    Self.convert(
                                        y + row * width, blues, reds, width: width, into: out + row * width * 4)
                                }
                                initialized = width * height * 4
                            }
                        }
                    }
                }
            }
        }
        return Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels,
            sourceFormat: sourceFormat)
    }

    /// Three full-sized planes (4:4:4), `width x height` each, as an opaque RGBA8 image of `sourceFormat`; nil
    /// unless each holds exactly its samples.
    package static func rgbaImage(
        width: Int, height: Int, y: [UInt8], cb: [UInt8], cr: [UInt8], sourceFormat: ImageFormat
    ) -> Image? {
        let count = width * height
        guard width > 0, height > 0, y.count == count, cb.count == count, cr.count == count else { return nil }
        let pixels = [UInt8](unsafeUninitializedCapacity: count * 4) { buffer, initialized in
            y.withUnsafeBufferPointer { y in
                cb.withUnsafeBufferPointer { cb in
                    cr.withUnsafeBufferPointer { cr in
                        guard let out = buffer.baseAddress, let y = y.baseAddress, let cb = cb.baseAddress,
                            let cr = cr.baseAddress
                        else { return }
                        for row in 0..<height {
                            let start = row * width
                            convert(y + start, cb + start, cr + start, width: width, into: out + start * 4)
                        }
                        initialized = count * 4
                    }
                }
            }
        }
        return Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels,
            sourceFormat: sourceFormat)
    }

    /// One row of JFIF's full-range YCbCr to opaque RGBA, in 16-bit fixed point.
    @inline(__always)
    private static func convert(
        _ luma: UnsafePointer<UInt8>, _ blues: UnsafePointer<UInt8>, _ reds: UnsafePointer<UInt8>, width: Int,
        into pixel: UnsafeMutablePointer<UInt8>
    ) {
        // R = Y + 1.402 Cr', G = Y - 0.344136 Cb' - 0.714136 Cr', B = Y + 1.772 Cb', with 65536 as one.
        let crToR: Int32 = 91_881, cbToG: Int32 = -22_554, crToG: Int32 = -46_802, cbToB: Int32 = 116_130
        let half: Int32 = 32_768
        // Wrapping arithmetic: the values cannot overflow, and checked operations would keep the loop from
        // vectorising.
        for x in 0..<width {
            let l = Int32(luma[x]) &<< 16 &+ half
            let blue = Int32(blues[x]) &- 128, red = Int32(reds[x]) &- 128
            pixel[4 &* x] = clamped((l &+ crToR &* red) &>> 16)
            pixel[4 &* x &+ 1] = clamped((l &+ cbToG &* blue &+ crToG &* red) &>> 16)
            pixel[4 &* x &+ 2] = clamped((l &+ cbToB &* blue) &>> 16)
            pixel[4 &* x &+ 3] = 255
        }
    }

    /// One row of chroma at the luma's width from the chroma row it lies in (`near`) and the next one toward it
    /// (`far`): three parts near to one far down, then three parts the sample a pixel lies in to one of the
    /// next toward it across, rounded with libjpeg-turbo's alternating biases of 8 and 7. Edge samples repeat.
    @inline(__always)
    private static func upsample(
        _ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>, width: Int, chromaWidth: Int,
        sums: UnsafeMutablePointer<Int32>, into output: UnsafeMutablePointer<UInt8>
    ) {
        for k in 0..<chromaWidth { sums[k] = 3 &* Int32(near[k]) &+ Int32(far[k]) }
        for x in 0..<width {
            let k = x &>> 1
            let next = x & 1 == 0 ? max(k &- 1, 0) : min(k &+ 1, chromaWidth &- 1)
            let bias: Int32 = x & 1 == 0 ? 8 : 7
            output[x] = UInt8(truncatingIfNeeded: (3 &* sums[k] &+ sums[next] &+ bias) &>> 4)
        }
    }

    @inline(__always)
    private static func clamped(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(value, 0), 255))
    }
}
