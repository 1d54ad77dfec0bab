import Foundation
import Testing
import TroveCore

/// The XMP and IPTC-IIM rights readers and writers on hand-made blocks: every form a writer may use, the
/// merge with EXIF, and malformed input reading as absent.
@Suite struct RightsMetadataParsingTests {
    /// A packet in the form Adobe's tools write: property elements, each in its own rdf:Description, with an
    /// rdf:Alt whose x-default item is not the first, a Seq of two creators, and fields that are not rights.
    static let elementForm = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Test">
        <!-- a comment with <tags> inside -->
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
         <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <dc:rights><rdf:Alt>
           <rdf:li xml:lang="de-DE">© 2026 Ana Lima (de)</rdf:li>
           <rdf:li xml:lang="x-default">© 2026 Ana Lima &amp; Co &lt;studio&gt; &#x263A;&#65;</rdf:li>
          </rdf:Alt></dc:rights>
          <dc:creator><rdf:Seq><rdf:li>Ana Lima</rdf:li><rdf:li>Bo Chen</rdf:li></rdf:Seq></dc:creator>
          <dc:subject><rdf:Bag><rdf:li>cat</rdf:li></rdf:Bag></dc:subject>
         </rdf:Description>
         <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
           xmlns:R="http://ns.adobe.com/xap/1.0/rights/">
          <xmp:CreatorTool>Camera App 1.0</xmp:CreatorTool>
          <R:Marked>True</R:Marked>
          <R:WebStatement rdf:resource="https://example.com/licence?a=1&amp;b=2"/>
          <R:UsageTerms><rdf:Alt><rdf:li xml:lang="x-default"><![CDATA[Editorial use <only>]]></rdf:li></rdf:Alt>
          </R:UsageTerms>
          <dc:title xmlns:dc="http://purl.org/dc/elements/1.1/"><rdf:Alt><rdf:li>Title</rdf:li></rdf:Alt></dc:title>
         </rdf:Description>
        </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    @Test func readsTheElementForm() throws {
        let notice = try #require(XMPRights.notice(inPacket: Array(Self.elementForm.utf8)))
        #expect(notice.copyright == "© 2026 Ana Lima & Co <studio> ☺A")
        #expect(notice.artist == "Ana Lima; Bo Chen")
        #expect(notice.creators == ["Ana Lima", "Bo Chen"])
        #expect(notice.marked == true)
        #expect(notice.webStatement == "https://example.com/licence?a=1&b=2")
        #expect(notice.usageTerms == "Editorial use <only>")
        #expect(notice.credit == nil)
    }

    @Test func readsTheAttributeFormUnderAnyPrefix() throws {
        let packet = """
            <x:xmpmeta xmlns:x='adobe:ns:meta/'><r:RDF xmlns:r='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
            <r:Description r:about='' xmlns:ps='http://ns.adobe.com/photoshop/1.0/'
              xmlns:xr='http://ns.adobe.com/xap/1.0/rights/' ps:Credit='Agency &quot;X&quot;'
              xr:Marked='False' xr:WebStatement='https://example.com/&#10;x'
              ps:Source='Not a rights field'/>
            <r:Description><d:creator xmlns:d='http://purl.org/dc/elements/1.1/'><r:Bag><r:li>Solo</r:li></r:Bag>
            </d:creator></r:Description>
            </r:RDF></x:xmpmeta>
            """
        let notice = try #require(XMPRights.notice(inPacket: Array(packet.utf8)))
        #expect(notice.credit == "Agency \"X\"")
        #expect(notice.marked == false)
        #expect(notice.webStatement == "https://example.com/\nx")
        #expect(notice.artist == "Solo")
        #expect(notice.copyright == nil && notice.usageTerms == nil)
    }

    @Test func aDescriptionNestedInAValueIsNotRead() {
        let packet = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/"
              xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/">
             <rdf:Description><xmpMM:DerivedFrom><rdf:Description><dc:rights>Not ours</dc:rights></rdf:Description>
             </xmpMM:DerivedFrom></rdf:Description>
            </rdf:RDF>
            """
        #expect(XMPRights.notice(inPacket: Array(packet.utf8)) == nil)
    }

    @Test func malformedPacketsReadAsAbsent() {
        let cases = [
            "",
            "not xml at all & < >",
            String(Self.elementForm.dropLast(80)),  // cut inside the closing tags
            Self.elementForm.replacingOccurrences(of: "</dc:creator>", with: "</dc:creators>"),
            Self.elementForm.replacingOccurrences(of: "xmlns:R=", with: "xmlns:Q="),  // R: left unbound
            Self.elementForm.replacingOccurrences(of: "rdf:about=\"\" xmlns:dc", with: "rdf:about=\" xmlns:dc"),
            String(repeating: "<a>", count: 500) + String(repeating: "</a>", count: 500),
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description <!-- ->"
        ]
        for packet in cases {
            #expect(XMPRights.notice(inPacket: Array(packet.utf8)) == nil, "\(packet.prefix(60))")
        }
        #expect(XMPRights.notice(inPacket: [0xFF, 0xFE, 0x3C, 0x00, 0x00]) == nil)
    }

    /// Every field, with the characters XML escapes, a NUL (EXIF's photographer/editor separator) and line
    /// breaks, goes through the writer and back through the reader.
    @Test func aWrittenPacketReadsBack() throws {
        var notice = CopyrightNotice(copyright: "A & B <c> \"d\" 'e'\0Editor", artist: "Ana <1>; Bo & Co")
        notice.usageTerms = "Line one\nLine\ttwo\r"
        notice.webStatement = "https://example.com/?a=1&b=\"2\""
        notice.marked = true
        notice.credit = "Credit > all"
        let packet = try #require(XMPRights.packet(for: notice))
        let text = String(decoding: packet, as: UTF8.self)
        #expect(text.hasPrefix("<?xpacket begin=\"\u{FEFF}\""))
        #expect(text.hasSuffix("<?xpacket end=\"r\"?>"))
        #expect(!text.contains("A & B") && !text.contains("\0"))
        var expected = notice
        expected.copyright = "A & B <c> \"d\" 'e'; Editor"
        #expect(XMPRights.notice(inPacket: packet) == expected)
        #expect(XMPRights.packet(for: CopyrightNotice()) == nil)
        var onlyMarked = CopyrightNotice()
        onlyMarked.marked = false
        #expect(XMPRights.packet(for: onlyMarked).flatMap { XMPRights.notice(inPacket: $0) } == onlyMarked)
    }

    @Test func iptcDatasetsReadBackAndLatin1IsRead() throws {
        var notice = CopyrightNotice(copyright: "© 2026 Ana Lima", artist: "Ana Lima; Bo Chen")
        notice.credit = "Agency"
        notice.usageTerms = "not in IIM"
        let datasets = try #require(IPTCRecords.datasets(for: notice))
        var expected = notice
        expected.usageTerms = nil
        #expect(IPTCRecords.notice(inDatasets: datasets) == expected)
        let resources = IPTCRecords.resources(holding: datasets)
        #expect(IPTCRecords.datasets(inResources: resources) == datasets)

        // Without 1:90, text that is not UTF-8 is Latin-1; a resource before 0x0404 has an odd name and size;
        // an extended length (0x8002: two length bytes follow) is read.
        let latin1: [UInt8] = [0x1C, 2, 116, 0, 6, 0xA9, 0x20, 0x32, 0x30, 0x32, 0x36]
        let extended: [UInt8] = [0x1C, 2, 80, 0x80, 0x02, 0, 3] + Array("Ana".utf8)
        var other: [UInt8] = Array("8BIM".utf8) + [0x03, 0xED, 1, 0x41, 0, 0, 0, 3, 9, 9, 9, 0]
        other += IPTCRecords.resources(holding: latin1 + extended)
        let found = try #require(IPTCRecords.datasets(inResources: other))
        #expect(IPTCRecords.notice(inDatasets: found) == CopyrightNotice(copyright: "© 2026", artist: "Ana"))

        // Cut inside a dataset: what came before it still reads.
        #expect(IPTCRecords.notice(inDatasets: latin1 + extended.dropLast(1)) == CopyrightNotice(copyright: "© 2026"))
        #expect(IPTCRecords.notice(inDatasets: [0x1C, 2, 116, 0xFF, 0xFF]) == nil)
        #expect(IPTCRecords.datasets(inResources: Array(resources.dropLast(4))) == nil)
        #expect(IPTCRecords.datasets(for: CopyrightNotice()) == nil)
    }

    /// EXIF's fields first, then what XMP adds, then what IPTC-IIM adds.
    @Test func exifWinsThenXMPThenIPTC() throws {
        let exif = try #require(ExifBlock.tiff(for: CopyrightNotice(copyright: "EXIF ©")))
        var xmpNotice = CopyrightNotice(copyright: "XMP ©", artist: "XMP Artist")
        xmpNotice.usageTerms = "XMP terms"
        var iptcNotice = CopyrightNotice(copyright: "IPTC ©", artist: "IPTC Artist")
        iptcNotice.credit = "IPTC credit"
        let metadata = EmbeddedMetadata(
            exif: exif, xmp: XMPRights.packet(for: xmpNotice), iptc: IPTCRecords.datasets(for: iptcNotice))
        var expected = CopyrightNotice(copyright: "EXIF ©", artist: "XMP Artist")
        expected.usageTerms = "XMP terms"
        expected.credit = "IPTC credit"
        #expect(metadata.copyrightNotice == expected)
        #expect(EmbeddedMetadata(xmp: Array("<broken".utf8), iptc: [1, 2, 3]).copyrightNotice == nil)
        #expect(EmbeddedMetadata().copyrightNotice == nil)
    }
}
