import Foundation

extension ResizeTransformer.Filter {
    /// Half-width of the kernel at scale 1, in source pixels.
    var support: Double {
        switch self {
        case .nearest: 0.5
        case .bilinear: 1
        case .bicubic: 2
        case .lanczos3: 3
        }
    }

    /// The kernel's weight at distance `x` (in source pixels at scale 1) from the sample centre.
    func weight(at x: Double) -> Double {
        let t = abs(x)
        switch self {
        case .nearest:
            return t < 0.5 ? 1 : 0
        case .bilinear:
            return t < 1 ? 1 - t : 0
        case .bicubic:
            // Keys' cubic convolution with a = -0.5 (Catmull-Rom), the value Pillow uses.
            let a = -0.5
            if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
            if t < 2 { return (((t - 5) * t + 8) * t - 4) * a }
            return 0
        case .lanczos3:
            return t < 3 ? lanczos3Weight(t) : 0
        }
    }
}

/// sinc(t) * sinc(t / 3) with one sine: sin(pi t) = sin(3a) = s (3 - 4 s^2) for a = pi t / 3, s = sin(a).
/// Weight tables call this for every tap, and the sine was most of their cost.
private func lanczos3Weight(_ t: Double) -> Double {
    if t == 0 { return 1 }
    let third = Double.pi * t / 3
    let s = sin(third)
    return s * (3 - 4 * s * s) * s / (3 * third * third)
}
