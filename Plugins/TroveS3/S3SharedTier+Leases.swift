import Crypto
import Foundation
import NIOCore
import TroveCore

/// Fleet-wide leases on S3 alone, taken with conditional writes: a lease is a small object under
/// `prefix/leases/<sha256>` (a name no value's `prefix/aa/bb/<sha256>` can take) holding its holder's token
/// and when it expires.
///
/// - `acquireLease` PUTs it with `If-None-Match: *`: 200 is the lease, 412 means a holder has it. Unless that
///   holder's lease has expired (it died): then the object is replaced with `If-Match: <its ETag>`, so of
///   two processes taking over the same dead lease only one succeeds.
/// - `releaseLease` reads the object and deletes it with `If-Match: <its ETag>` only while it holds our
///   token, so a lease that expired and passed to another holder is left to it.
///
/// The expiry is written from the holder's clock and read against the reader's: clocks that disagree by
/// more than a few seconds shorten or lengthen a dead holder's lease by that much. S3 has supported these
/// conditions on PUT since 2024 and SeaweedFS (4.48 tested) on PUT and DELETE.
extension S3SharedTier {
    /// What a lease object holds: `trove-lease 1`, the token, the expiry in milliseconds since 1970.
    struct LeaseRecord: Equatable {
        var token: String
        var expires: Date

        var data: Data {
            // Clamped: a lease time from a configuration, however large, must not trap the conversion.
            let millis = (expires.timeIntervalSince1970 * 1000).rounded()
            let written = millis.isFinite ? Int64(min(max(millis, 0), 9e15)) : 0
            return Data("trove-lease 1\n\(token)\n\(written)\n".utf8)
        }

        /// The record in `data`; nil for anything else (a damaged or foreign object, which is taken over).
        init?(_ data: Data) {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            guard lines.count >= 3, lines[0] == "trove-lease 1", !lines[1].isEmpty, let millis = Int64(lines[2])
            else { return nil }
            token = String(lines[1])
            expires = Date(timeIntervalSince1970: Double(millis) / 1000)
        }

        init(token: String, expires: Date) {
            self.token = token
            self.expires = expires
        }
    }

    /// The object a lease on `key` is kept in: `prefix/leases/<sha256 of the key prefix and key>`.
    package func leaseObjectKey(for key: String) -> String {
        "\(prefix)/leases/\(SigV4Encoding.hex(SHA256.hash(data: Array((options.keyPrefix + key).utf8))))"
    }

    /// Takes the lease on `key` for `ttl` with a conditional PUT; nil while a live holder has it. An expired
    /// lease (its holder died) is taken over with `If-Match` on its ETag.
    package func acquireLease(on key: String, ttl: Duration) async throws -> SharedTierLease? {
        let objectKey = leaseObjectKey(for: key)
        let token = UUID().uuidString
        let milliseconds = Double(ttl.components.seconds) * 1000 + Double(ttl.components.attoseconds) / 1e15
        let record = LeaseRecord(token: token, expires: Date().addingTimeInterval(milliseconds / 1000))
        let acquired: Bool = try await call { deadline in
            // Twice at most: a lease released between our PUT and our read is free again.
            for _ in 0..<2 {
                if try await self.client.conditionalPut(
                    objectKey, body: record.data, condition: SigV4Field("if-none-match", "*"), deadline: deadline)
                {
                    return true
                }
                guard let current = try await self.client.getData(objectKey, maxBytes: 4096, deadline: deadline)
                else { continue }
                let held = LeaseRecord(current.data)
                // Our own PUT, answered 412 on a retry after its first answer was lost.
                if held?.token == token { return true }
                if let held, held.expires > Date() { return false }
                guard let etag = current.info.etag else { return false }
                return try await self.client.conditionalPut(
                    objectKey, body: record.data, condition: SigV4Field("if-match", etag), deadline: deadline)
            }
            return false
        }
        return acquired ? SharedTierLease(key: key, token: token) : nil
    }

    /// Deletes the lease object with `If-Match` on its ETag, only while it holds `lease`'s token.
    package func releaseLease(_ lease: SharedTierLease) async throws {
        let objectKey = leaseObjectKey(for: lease.key)
        try await call { deadline in
            guard let current = try await self.client.getData(objectKey, maxBytes: 4096, deadline: deadline),
                LeaseRecord(current.data)?.token == lease.token, let etag = current.info.etag
            else { return }
            _ = try await self.client.conditionalDelete(objectKey, ifMatch: etag, deadline: deadline)
        }
    }
}

extension S3Client {
    /// One PUT of a small `body` under `condition` (`If-None-Match: *`, `If-Match: <etag>`): true when
    /// stored, false when the condition failed (412, or 409 for a conditional write racing another).
    func conditionalPut(_ key: String, body: Data, condition: SigV4Field, deadline: ContinuousClock.Instant)
        async throws -> Bool
    {
        let request = S3Request(
            method: .PUT, key: key, headers: [SigV4Field("content-type", "text/plain"), condition],
            body: ByteBuffer(bytes: body))
        return try await withDeadline(deadline, operation: request.operation) {
            do {
                return try await send(request, deadline: deadline) { _ in true }
            } catch let S3Error.service(error) where error.status == 412 || error.status == 409 {
                return false
            }
        }
    }

    /// DELETE with `If-Match: etag`: true when deleted (or already gone), false when the object changed.
    func conditionalDelete(_ key: String, ifMatch etag: String, deadline: ContinuousClock.Instant) async throws
        -> Bool
    {
        let request = S3Request(method: .DELETE, key: key, headers: [SigV4Field("if-match", etag)])
        return try await withDeadline(deadline, operation: request.operation) {
            do {
                return try await send(request, deadline: deadline) { _ in true }
            } catch let S3Error.service(error) where error.status == 412 {
                return false
            } catch let S3Error.service(error) where error.code == "NoSuchKey" {
                return true
            }
        }
    }
}
