import Testing
import TroveFetcher

/// IP address parsing and the classes the SSRF rules judge by.
@Suite struct AddressClassificationTests {
    @Test(arguments: [
        ("127.0.0.1", AddressClass.loopback), ("127.255.255.254", .loopback),
        ("10.0.0.5", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private),
        ("100.64.0.1", .private), ("100.127.255.255", .private), ("198.18.0.1", .private),
        ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast),
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified),
        ("255.255.255.255", .reserved), ("240.0.0.1", .reserved), ("192.0.2.1", .reserved), ("203.0.113.7", .reserved),
        ("172.15.255.255", .public), ("172.32.0.1", .public), ("100.128.0.1", .public), ("8.8.8.8", .public),
        ("1.1.1.1", .public), ("93.184.216.34", .public)
    ])
    func ipv4(_ text: String, _ expected: AddressClass) throws {
        let address = try #require(IPAddress(text))
        #expect(address.addressClass == expected)
        #expect(address.description == text)
    }

    @Test(arguments: [
        ("::1", AddressClass.loopback), ("::", .unspecified), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("fc00::1", .private), ("fd12:3456::1", .private), ("fec0::1", .private), ("64:ff9b:1::1", .private),
        ("ff02::1", .multicast), ("2001:db8::1", .reserved), ("100::1", .reserved),
        ("2606:4700::1111", .public), ("2001:4860:4860::8888", .public)
    ])
    func ipv6(_ text: String, _ expected: AddressClass) throws {
        let address = try #require(IPAddress(text))
        #expect(address.addressClass == expected)
        #expect(address.description == text)
    }

    /// IPv6 addresses that carry an IPv4 address are judged as that address.
    @Test(arguments: [
        ("::ffff:127.0.0.1", AddressClass.loopback), ("::ffff:7f00:1", .loopback), ("::ffff:10.0.0.5", .private),
        ("::ffff:169.254.169.254", .linkLocal), ("::ffff:0.0.0.0", .unspecified), ("::ffff:224.0.0.1", .multicast),
        ("::ffff:8.8.8.8", .public), ("::127.0.0.1", .loopback), ("::ffff:0:127.0.0.1", .loopback),
        ("64:ff9b::10.0.0.5", .private), ("64:ff9b::8.8.8.8", .public),
        ("2002:7f00:1::", .loopback), ("2002:a9fe:a9fe::1", .linkLocal), ("2002:808:808::1", .public)
    ])
    func ipv4InIPv6(_ text: String, _ expected: AddressClass) throws {
        let address = try #require(IPAddress(text))
        #expect(address.addressClass == expected)
    }

    @Test func strictParsing() {
        for text in [
            "1.2.3", "1.2.3.4.5", "01.2.3.4", "256.0.0.1", "1.2.3.-4", "", "1::2::3", "12345::1", "::g",
            "1:2:3:4:5:6:7:8:9", ":1::", "::1.2.3", "fe80::1%"
        ] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
        #expect(IPAddress("fe80::1%eth0") == IPAddress("fe80::1"))
        #expect(IPAddress("::ffff:1.2.3.4") == IPAddress("::ffff:102:304"))
        #expect(IPAddress("2001:db8:0:0:1:0:0:1")?.description == "2001:db8::1:0:0:1")
        #expect(IPAddress("1:0:0:0:0:0:0:0")?.description == "1::")
        #expect(IPAddress("1:0:2:3:4:5:6:7")?.description == "1:0:2:3:4:5:6:7")
    }

    @Test func policySwitches() throws {
        let loopback = try #require(IPAddress("127.0.0.1"))
        let privateAddress = try #require(IPAddress("10.0.0.5"))
        let metadata = try #require(IPAddress("169.254.169.254"))
        let neverAllowed = try ["0.0.0.0", "::", "224.0.0.1", "ff02::1", "255.255.255.255"].map {
            try #require(IPAddress($0))
        }
        let closed = AddressPolicy()
        #expect(!closed.permits(loopback) && !closed.permits(privateAddress) && !closed.permits(metadata))
        #expect(closed.permits(try #require(IPAddress("8.8.8.8"))))
        let loopbackOnly = AddressPolicy(allowLoopback: true)
        #expect(loopbackOnly.permits(loopback) && !loopbackOnly.permits(privateAddress))
        // Private does not include link-local, as in imgproxy: the metadata service stays out.
        let privateToo = AddressPolicy(allowLoopback: true, allowPrivate: true)
        #expect(privateToo.permits(privateAddress) && !privateToo.permits(metadata))
        let open = AddressPolicy(allowLoopback: true, allowPrivate: true, allowLinkLocal: true)
        #expect(open.permits(metadata))
        #expect(neverAllowed.allSatisfy { !open.permits($0) })
        #expect(
            closed.refusal(of: metadata)
                == "169.254.169.254 is a link-local address, and link-local sources are not allowed (allowLinkLocal)")
        #expect(
            open.refusal(of: neverAllowed[0]) == "0.0.0.0 is a unspecified address, which is never allowed as a source")
    }
}
