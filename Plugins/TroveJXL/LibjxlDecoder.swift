import CJXL
import TroveCore

/// One libjxl decoder over bytes that outlive it (libjxl does not copy them), destroyed with it. The whole
/// file is given at once and the input closed, so a file that ends early fails instead of asking for more.
/// Confined to the call that made it.
final class LibjxlDecoder {
    let raw: OpaquePointer
    /// Declared after `raw` and released after `deinit` destroys the decoder that uses it.
    private let pool: JXLThreadPool

    /// Straight-alpha RGBA8, whatever the file stores (grey is spread to RGB, deeper samples rounded).
    static let rgba8 = JxlPixelFormat(
        num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)

    /// A decoder over `bytes` that reports `events` (`JxlDecoderStatus` flags), on `threads` threads.
    /// The EXIF orientation is kept, not applied: it goes to `Image.orientation` for the `orient` transform.
    init(_ bytes: UnsafeRawBufferPointer, events: [JxlDecoderStatus], threads: Int) throws {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            throw JXLDecoder.failure("the file is empty")
        }
        guard let raw = JxlDecoderCreate(nil) else { throw JXLDecoder.failure("out of memory starting libjxl") }
        self.raw = raw
        pool = JXLThreadPool(threads: threads)
        let wanted = events.reduce(0) { $0 | Int32(bitPattern: $1.rawValue) }
        guard pool.attach(decoder: raw),
            JxlDecoderSubscribeEvents(raw, wanted) == JXL_DEC_SUCCESS,
            JxlDecoderSetKeepOrientation(raw, JXL_TRUE) == JXL_DEC_SUCCESS,
            JxlDecoderSetUnpremultiplyAlpha(raw, JXL_TRUE) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(raw, base, bytes.count) == JXL_DEC_SUCCESS
        else { throw JXLDecoder.failure("libjxl refused the decoder's settings") }
        JxlDecoderCloseInput(raw)
    }

    deinit { JxlDecoderDestroy(raw) }

    /// Runs libjxl to its next event.
    func next() -> JxlDecoderStatus { JxlDecoderProcessInput(raw) }

    /// Runs to the basic info and returns it; throws when the header is cut short or damaged.
    func readBasicInfo() throws -> JxlBasicInfo {
        let status = next()
        guard status == JXL_DEC_BASIC_INFO else { throw failure(status, "the header") }
        return try basicInfo()
    }

    /// The basic info, after `JXL_DEC_BASIC_INFO`.
    func basicInfo() throws -> JxlBasicInfo {
        var info = JxlBasicInfo()
        guard JxlDecoderGetBasicInfo(raw, &info) == JXL_DEC_SUCCESS else {
            throw JXLDecoder.failure("libjxl could not read the header")
        }
        return info
    }

    /// How long the current frame shows, after `JXL_DEC_FRAME`: its ticks at the animation's tick rate.
    func frameDelay(_ info: JxlBasicInfo) -> Duration {
        var header = JxlFrameHeader()
        guard JxlDecoderGetFrameHeader(raw, &header) == JXL_DEC_SUCCESS else { return .zero }
        let animation = info.animation
        guard animation.tps_numerator > 0 else { return .zero }
        let attoseconds =
            Int128(header.duration) * Int128(animation.tps_denominator) * 1_000_000_000_000_000_000
            / Int128(animation.tps_numerator)
        return Duration(attoseconds: attoseconds)
    }

    /// The colours of the decoded pixels (libjxl's "data" profile), after `JXL_DEC_COLOR_ENCODING`: CICP when
    /// libjxl describes them as one of the enumerated spaces H.273 also numbers, else its ICC profile.
    func colorDescription() -> ColorDescription? {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(raw, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
            let cicp = JXLColor.cicp(encoding)
        {
            return ColorDescription(cicp: cicp)
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(raw, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
            size > 0
        else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let status = profile.withUnsafeMutableBufferPointer {
            JxlDecoderGetColorAsICCProfile(raw, nil, JXL_COLOR_PROFILE_TARGET_DATA, $0.baseAddress, size)
        }
        return status == JXL_DEC_SUCCESS ? ColorDescription(iccProfile: profile) : nil
    }

    /// Decodes the frame libjxl asked a buffer for (`JXL_DEC_NEED_IMAGE_OUT_BUFFER`) straight into a new
    /// array of `byteCount` bytes, running libjxl until the frame is complete.
    func decodeFrame(byteCount: Int, name: String) throws -> [UInt8] {
        var format = Self.rgba8
        var needed = 0
        guard JxlDecoderImageOutBufferSize(raw, &format, &needed) == JXL_DEC_SUCCESS, needed == byteCount else {
            throw JXLDecoder.failure("libjxl wants \(needed) bytes for \(name), not the \(byteCount) its size needs")
        }
        return try [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            guard JxlDecoderSetImageOutBuffer(raw, &format, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS else {
                throw JXLDecoder.failure("libjxl refused the output buffer for \(name)")
            }
            let status = next()
            guard status == JXL_DEC_FULL_IMAGE else { throw failure(status, name) }
            initialized = buffer.count
        }
    }

    /// The error for stopping at `status` while reading `part` of the file.
    func failure(_ status: JxlDecoderStatus, _ part: String) -> TroveError {
        switch status {
        case JXL_DEC_NEED_MORE_INPUT:
            JXLDecoder.failure("the JPEG XL file ends before \(part) does (it is truncated)")
        case JXL_DEC_ERROR:
            JXLDecoder.failure("libjxl found \(part) of the JPEG XL file damaged or cut short")
        default:
            JXLDecoder.failure("libjxl stopped at an unexpected event (\(status.rawValue)) in \(part)")
        }
    }
}
