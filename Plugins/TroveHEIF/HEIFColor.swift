import CHEIF
import TroveCore

/// What a HEIF image's 'colr' box says about its colours.
enum HEIFColor {
    /// The ICC profile ('prof' or 'rICC'), or the nclx code points as CICP; nil when the file says neither,
    /// or says only "unspecified".
    static func description(of handle: OpaquePointer) -> ColorDescription? {
        switch heif_image_handle_get_color_profile_type(handle) {
        case heif_color_profile_type_prof, heif_color_profile_type_rICC:
            let size = heif_image_handle_get_raw_color_profile_size(handle)
            guard size > 0 else { return nil }
            var profile = [UInt8](repeating: 0, count: size)
            let error = profile.withUnsafeMutableBytes {
                heif_image_handle_get_raw_color_profile(handle, $0.baseAddress)
            }
            return error.code == heif_error_Ok ? ColorDescription(iccProfile: profile) : nil
        case heif_color_profile_type_nclx:
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            let error = heif_image_handle_get_nclx_color_profile(handle, &nclx)
            // libheif 1.15 may hand back an allocated profile with an error (values it cannot map): free it too.
            defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
            guard error.code == heif_error_Ok, let nclx else { return nil }
            let cicp = ColorDescription.CICP(
                primaries: UInt16(truncatingIfNeeded: nclx.pointee.color_primaries.rawValue),
                transfer: UInt16(truncatingIfNeeded: nclx.pointee.transfer_characteristics.rawValue),
                matrix: UInt16(truncatingIfNeeded: nclx.pointee.matrix_coefficients.rawValue),
                fullRange: nclx.pointee.full_range_flag != 0)
            // 2 is H.273's "unspecified": nothing said.
            if cicp.primaries == 2 && cicp.transfer == 2 && cicp.matrix == 2 { return nil }
            return ColorDescription(cicp: cicp)
        default:
            return nil
        }
    }
}
