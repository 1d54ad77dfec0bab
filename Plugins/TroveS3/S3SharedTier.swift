import Crypto
import Foundation
import Synchronization
import TroveCore

/// The shared cache tier on an S3 bucket: durable bytes for a fleet, below Redis's hot values and leases
/// when the two are stacked. A value is stored as given (the pipeline's entry format, whose full key and CRC
/// the reader checks) under `prefix/aa/bb/<sha256 of the key>`, so keys of any length or bytes map to short,
/// evenly spread object names.
///
/// S3 keeps no per-object TTL: the entry inside says when it expires, and a bucket lifecycle rule may age
/// objects out. Leases are objects taken with conditional writes (`S3SharedTier+Leases.swift`), so a fleet on
/// S3 alone fetches each key once; stacked below Redis, Redis's leases are used. An outage or a slow answer is
/// `sharedTierUnavailable`; a refused credential or a missing bucket is `invalidConfiguration`, reported rather
/// than taken for an outage.
package final class S3SharedTier: SharedCacheTier {
    /// The client every call goes through.
    package let client: S3Client
    /// The folder values live under.
    package let prefix: String
    let options: SharedTierOptions
    private let state = Mutex(State())

    private struct State {
        var statistics = SharedTierStatistics()
        var isShutDown = false
    }

    /// A tier on `client`'s bucket under `prefix`; each call may take `connectTimeout + commandTimeout`.
    package init(client: S3Client, prefix: String = "trove", options: SharedTierOptions = SharedTierOptions()) {
        self.client = client
        self.prefix = prefix
        self.options = options
    }

    /// The options' `maxValueBytes`: made by `S3TierFactory`, the URL's `max-value-bytes`, else 1 GiB.
    package var maxValueBytes: Int? { options.maxValueBytes }

    /// The object key `key` is stored under: `prefix/aa/bb/<hex>` where hex is the SHA-256 of the options'
    /// key prefix and `key`.
    package func objectKey(for key: String) -> String {
        let hex = SigV4Encoding.hex(SHA256.hash(data: Array((options.keyPrefix + key).utf8)))
        let characters = Array(hex)
        return "\(prefix)/\(String(characters[0..<2]))/\(String(characters[2..<4]))/\(hex)"
    }

    /// The stored value, nil when there is none (or it is larger than `maxValueBytes`, so not one of ours).
    package func get(_ key: String) async throws -> Data? {
        let object = try await call { deadline in
            do {
                return try await self.client.getData(
                    self.objectKey(for: key), maxBytes: self.options.maxValueBytes, deadline: deadline)
            } catch S3Error.tooLarge {
                return nil
            }
        }
        count { if object == nil { $0.misses += 1 } else { $0.hits += 1 } }
        return object?.data
    }

    /// Stores `value` as given; `ttl` is not S3's to keep (the value carries its expiry). A value over
    /// `maxValueBytes` is skipped and counted.
    package func set(_ key: String, value: Data, ttl: Duration) async throws {
        guard value.count <= options.maxValueBytes else {
            count { $0.skipped += 1 }
            return
        }
        _ = try await call { deadline in
            try await self.client.put(
                self.objectKey(for: key), data: value,
                options: S3PutOptions(contentType: "application/octet-stream"), deadline: deadline)
        }
        count { $0.stores += 1 }
    }

    /// Removes the value; a missing one is fine.
    package func delete(_ key: String) async throws {
        try await call { deadline in try await self.client.delete(self.objectKey(for: key), deadline: deadline) }
    }

    /// Counts since the tier was made.
    package func statistics() -> SharedTierStatistics { state.withLock { $0.statistics } }

    /// This process's counts (S3 keeps no fleet-wide ones), once a GET has shown the bucket answers, so
    /// `trove cache stats` reports a server that is down or refuses the credentials instead of zeros.
    package func fleetStatistics() async throws -> SharedTierStatistics {
        _ = try await call { deadline in
            do {
                return try await self.client.getData(
                    self.objectKey(for: "trove-statistics-check"), maxBytes: 0, deadline: deadline)
            } catch S3Error.tooLarge {
                return nil
            }
        }
        return statistics()
    }

    /// After this every call throws `sharedTierUnavailable`; the HTTP client is shared and stays up.
    package func shutdown() async { state.withLock { $0.isShutDown = true } }

    // MARK: - Calls

    func count(_ change: (inout SharedTierStatistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }

    private func checkOpen() throws {
        if state.withLock({ $0.isShutDown }) {
            throw TroveError.sharedTierUnavailable(reason: "the S3 tier on \(client.configuration) was shut down")
        }
    }

    /// Runs `body` with a deadline of `connectTimeout + commandTimeout` from now, counting and translating its
    /// failure.
    func call<T: Sendable>(_ body: (ContinuousClock.Instant) async throws -> T) async throws -> T {
        try checkOpen()
        do {
            return try await body(.now + options.connectTimeout + options.commandTimeout)
        } catch let error as S3Error {
            count { $0.errors += 1 }
            throw Self.troveError(error)
        } catch {
            count { $0.errors += 1 }
            throw error
        }
    }

    /// Credentials, permissions and a missing bucket are mistakes to report; anything else is an outage the
    /// pipeline goes around.
    static func troveError(_ error: S3Error) -> TroveError {
        switch error {
        case let .service(failure)
        where failure.status == 403 || failure.code == "NoSuchBucket" || failure.code == "InvalidAccessKeyId"
            || failure.code == "ExpiredToken" || failure.code == "InvalidToken":
            .invalidConfiguration(error.description)
        case .missingCredentials, .invalidConfiguration:
            .invalidConfiguration(error.description)
        default:
            .sharedTierUnavailable(reason: error.description)
        }
    }
}
