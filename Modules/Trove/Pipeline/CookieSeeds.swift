import Foundation
import TroveCore
import TroveFetcher

extension PipelineConfiguration {
    /// Checks `cookies`: each key must be an http or https URL with a host, and each value a `Set-Cookie`
    /// header value a client would keep from that URL. Throws `invalidConfiguration` naming the first that is
    /// not.
    package static func checkCookies(_ cookies: [String: [String]]) throws {
        for (text, headers) in cookies.sorted(by: { $0.key < $1.key }) {
            let url = try cookieURL(text)
            for header in headers where StoredCookie(setCookieHeader: header, receivedFrom: url, at: Date()) == nil {
                throw TroveError.invalidConfiguration(
                    "the cookie '\(header)' for \(text) is not one a client keeps: give 'name=value', with a "
                        + "Domain (if any) that \(url.host ?? text) is in")
            }
        }
    }

    /// The URL a group of seed cookies is taken as coming from.
    static func cookieURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw TroveError.invalidConfiguration(
                "cookies are given by the URL they are sent to, such as https://example.com/, not '\(text)'")
        }
        return url
    }

    /// This configuration with `cookieStore` ready for fetches: unchanged without `cookies`; with them, the
    /// store given (or a new `CookieJar`) holding them, as if each URL's responses had set them. Seeds
    /// `checkCookies` would refuse are left out.
    func seedingCookies() -> PipelineConfiguration {
        guard let cookies else { return self }
        var seeded = self
        let store = cookieStore ?? CookieJar()
        for (text, headers) in cookies {
            guard let url = try? Self.cookieURL(text) else { continue }
            store.storeCookies(fromSetCookieHeaders: headers, receivedFrom: url)
        }
        seeded.cookieStore = store
        return seeded
    }
}
