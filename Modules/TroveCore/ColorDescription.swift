/// What a source file says about its colours, as its decoder found it. TroveCore only carries it: a colour
/// plugin (TroveColor, on LittleCMS) reads it to convert pixels to sRGB, and encoders may embed `iccProfile`.
public struct ColorDescription: Sendable, Hashable {
    /// An embedded ICC profile, whole (JPEG APP2 markers joined, PNG iCCP inflated, WebP ICCP, HEIF/AVIF colr).
    public var iccProfile: [UInt8]?
    /// CICP code points (ITU-T H.273) from an nclx `colr` box or a codestream: primaries, transfer, matrix.
    public var cicp: CICP?
    /// PNG's `sRGB` chunk: the pixels are sRGB whatever else the file says.
    public var isSRGB: Bool
    /// PNG's `gAMA`: the file gamma (0.45455 for sRGB-like data), used only when there is no ICC profile.
    public var gamma: Double?
    /// PNG's `cHRM`: white point and primaries as CIE xy, used only when there is no ICC profile.
    public var chromaticities: Chromaticities?
    /// Set when the samples are CMYK (a CMYK or YCCK JPEG); `iccProfile` is then a CMYK profile. Such pixels
    /// are converted while they are decoded (they are not RGB), so an `Image` never carries this.
    public var cmyk: CMYK?

    /// A description with the given parts; every part defaults to "not said".
    public init(
        iccProfile: [UInt8]? = nil, cicp: CICP? = nil, isSRGB: Bool = false, gamma: Double? = nil,
        chromaticities: Chromaticities? = nil, cmyk: CMYK? = nil
    ) {
        self.iccProfile = iccProfile
        self.cicp = cicp
        self.isSRGB = isSRGB
        self.gamma = gamma
        self.chromaticities = chromaticities
        self.cmyk = cmyk
    }

    /// Whether the description says nothing a converter could act on: no profile, no CICP, no gamma or
    /// chromaticities, not CMYK.
    package var isEmpty: Bool {
        iccProfile == nil && cicp == nil && !isSRGB && gamma == nil && chromaticities == nil && cmyk == nil
    }

    /// Whether all the description says is an ICC profile of sRGB itself (`SRGBProfile`): converting to sRGB
    /// would change nothing but rounding.
    package var isOnlyAnSRGBProfile: Bool {
        guard let iccProfile, cicp == nil, gamma == nil, chromaticities == nil, cmyk == nil else { return false }
        return SRGBProfile.describes(iccProfile)
    }

    /// Every part, the profile's bytes hashed in one pass: an array hashes its bytes one at a time, which made
    /// each lookup of a camera's 3-20 KB profile in a converter's cache cost microseconds. Equality compares
    /// every part as usual; a part added to the type belongs here too.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(iccProfile?.count)
        iccProfile?.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(cicp)
        hasher.combine(isSRGB)
        hasher.combine(gamma)
        hasher.combine(chromaticities)
        hasher.combine(cmyk)
    }

    /// How a JPEG stores its CMYK samples, from its Adobe APP14 marker.
    public struct CMYK: Sendable, Hashable {
        /// Whether the file has an Adobe APP14 marker: Adobe's applications write CMYK inverted (0 = full ink),
        /// and libjpeg reads every CMYK file with that marker as such.
        public var isInverted: Bool
        /// The stored samples were YCCK (Adobe transform 2), which libjpeg has already turned into CMYK.
        public var wasYCCK: Bool

        /// How the samples are stored.
        public init(isInverted: Bool, wasYCCK: Bool = false) {
            self.isInverted = isInverted
            self.wasYCCK = wasYCCK
        }
    }

    /// CICP code points as ITU-T H.273 numbers them (1 = BT.709/sRGB primaries, 13 = sRGB transfer, ...).
    public struct CICP: Sendable, Hashable {
        /// Colour primaries (1 BT.709, 9 BT.2020, 12 P3-D65, ...).
        public var primaries: UInt16
        /// Transfer characteristics (13 sRGB, 16 PQ, 18 HLG, 8 linear, ...).
        public var transfer: UInt16
        /// Matrix coefficients (0 identity/RGB, 1 BT.709, 6 BT.601, ...).
        public var matrix: UInt16
        /// Whether the samples use the full range.
        public var fullRange: Bool

        /// Code points as read from the file.
        public init(primaries: UInt16, transfer: UInt16, matrix: UInt16, fullRange: Bool) {
            self.primaries = primaries
            self.transfer = transfer
            self.matrix = matrix
            self.fullRange = fullRange
        }
    }

    /// A white point and three primaries as CIE 1931 xy coordinates (PNG's cHRM).
    public struct Chromaticities: Sendable, Hashable {
        /// White point, red, green and blue primaries: x then y for each.
        public var whiteX: Double, whiteY: Double, redX: Double, redY: Double
        /// Green and blue primaries.
        public var greenX: Double, greenY: Double, blueX: Double, blueY: Double

        /// Chromaticities as read from the file.
        public init(
            whiteX: Double, whiteY: Double, redX: Double, redY: Double, greenX: Double, greenY: Double,
            blueX: Double, blueY: Double
        ) {
            self.whiteX = whiteX
            self.whiteY = whiteY
            self.redX = redX
            self.redY = redY
            self.greenX = greenX
            self.greenY = greenY
            self.blueX = blueX
            self.blueY = blueY
        }
    }
}
