import Testing
import TroveFetcher

/// URL hosts read as the connection would read them, before any DNS.
@Suite struct SourceHostTests {
    private static let loopback = IPAddress.v4(0x7F00_0001)

    @Test(arguments: [
        "127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "0x7F.0.0.1", "127.1", "127.0.1",
        "0x7f000001", "017700000001", "0177.1", "127.0.0.1.", "0x7f.0x0.0x0.0x1"
    ])
    func looseIPv4SpellingsOfLoopback(_ host: String) throws {
        #expect(try SourceHost(urlHost: host) == .address(Self.loopback))
    }

    @Test func ipv6Literals() throws {
        #expect(try SourceHost(urlHost: "[::ffff:7f00:1]") == .address(try #require(IPAddress("::ffff:127.0.0.1"))))
        #expect(try SourceHost(urlHost: "::1") == .address(try #require(IPAddress("::1"))))
        #expect(try SourceHost(urlHost: "[fe80::1%eth0]") == .address(try #require(IPAddress("fe80::1"))))
        #expect(try SourceHost(urlHost: "0xa9fea9fe") == .address(try #require(IPAddress("169.254.169.254"))))
    }

    @Test(arguments: ["localhost", "localhost.", "LocalHost", "images.localhost", "a.b.localhost."])
    func localhostNames(_ host: String) throws {
        #expect(try SourceHost(urlHost: host) == .localhost)
    }

    @Test func namesAreLoweredWithoutTheTrailingDot() throws {
        #expect(try SourceHost(urlHost: "Images.Example.COM.") == .name("images.example.com"))
        #expect(try SourceHost(urlHost: "localhost.example.com") == .name("localhost.example.com"))
        #expect(try SourceHost(urlHost: "0x7f.example") == .name("0x7f.example"))
    }

    /// Numbers that are no valid address, and characters no host has, are refused rather than handed to a
    /// resolver that might read them some other way.
    @Test(arguments: [
        "1.2.3.4.5", "256.0.0.1", "127.0.0.08", "0x100000000", "4294967296", "example.123",
        "exa mple.com", "a..b", "[::g]", "[1::2::3]", "127.0.0.1 x", "évil.com", "a%2fb"
    ])
    func refusedHosts(_ host: String) {
        #expect(throws: SourceHostError.self) { try SourceHost(urlHost: host) }
    }
}
