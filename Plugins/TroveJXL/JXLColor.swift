import CJXL
import TroveCore

/// libjxl's enumerated colour encodings as CICP code points (ITU-T H.273), where both name the space.
enum JXLColor {
    /// The code points for `encoding`, or nil when H.273 has no number for part of it (custom primaries or
    /// white point, a plain gamma, XYB or an unknown space): the caller then takes libjxl's ICC profile.
    static func cicp(_ encoding: JxlColorEncoding) -> ColorDescription.CICP? {
        let space = encoding.color_space
        guard space == JXL_COLOR_SPACE_RGB || space == JXL_COLOR_SPACE_GRAY,
            let primaries = primaries(encoding), let transfer = transfer(encoding.transfer_function)
        else { return nil }
        // Trove's pixels are RGB: matrix 0 (identity), full range.
        return ColorDescription.CICP(primaries: primaries, transfer: transfer, matrix: 0, fullRange: true)
    }

    /// H.273 colour primaries. JPEG XL's P3 is DCI-P3's primaries with either white point: D65 makes
    /// Display P3 (12), DCI's own white makes 11. Grey has no primaries; with D65 white it is BT.709's grey.
    private static func primaries(_ encoding: JxlColorEncoding) -> UInt16? {
        let d65 = encoding.white_point == JXL_WHITE_POINT_D65
        if encoding.color_space == JXL_COLOR_SPACE_GRAY { return d65 ? 1 : nil }
        switch encoding.primaries {
        case JXL_PRIMARIES_SRGB: return d65 ? 1 : nil
        case JXL_PRIMARIES_2100: return d65 ? 9 : nil
        case JXL_PRIMARIES_P3:
            if d65 { return 12 }
            return encoding.white_point == JXL_WHITE_POINT_DCI ? 11 : nil
        default: return nil
        }
    }

    /// H.273 transfer characteristics; libjxl numbers its enumerated ones the same way.
    private static func transfer(_ function: JxlTransferFunction) -> UInt16? {
        switch function {
        case JXL_TRANSFER_FUNCTION_709, JXL_TRANSFER_FUNCTION_LINEAR, JXL_TRANSFER_FUNCTION_SRGB,
            JXL_TRANSFER_FUNCTION_PQ, JXL_TRANSFER_FUNCTION_DCI, JXL_TRANSFER_FUNCTION_HLG:
            UInt16(function.rawValue)
        default: nil
        }
    }
}
