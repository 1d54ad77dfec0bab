/// The rights fields of an XMP packet, read and written: dc:rights, dc:creator, xmpRights:UsageTerms,
/// xmpRights:WebStatement, xmpRights:Marked and photoshop:Credit. The reader takes them from any top-level
/// rdf:Description, as attributes or as property elements (rdf:Alt, rdf:Seq and rdf:Bag items, an
/// rdf:resource); it ignores everything else in the packet. A packet that is not well-formed reads as absent:
/// a bad XMP packet never makes a good picture undecodable. The writer makes a small packet holding only
/// those fields.
package enum XMPRights {
    /// RDF's namespace.
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    /// Dublin Core's namespace (dc:rights, dc:creator).
    static let dc = "http://purl.org/dc/elements/1.1/"
    /// XMP Rights Management's namespace.
    static let xmpRights = "http://ns.adobe.com/xap/1.0/rights/"
    /// The Photoshop namespace (photoshop:Credit).
    static let photoshop = "http://ns.adobe.com/photoshop/1.0/"

    /// The identifier before the packet in a JPEG APP1 marker, NUL included.
    package static let jpegIdentifier = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// The keyword of the PNG iTXt chunk that holds the packet.
    package static let pngKeyword = "XML:com.adobe.xmp"
    /// Packets larger than this are not read.
    static let maxPacketSize = 16 << 20

    /// The rights fields of the packet in `utf8`, nil when it has none or is malformed.
    package static func notice(inPacket utf8: some Collection<UInt8>) -> CopyrightNotice? {
        guard utf8.count <= maxPacketSize, let document = XMLScanner.document(utf8) else { return nil }
        let descriptions = document.all { element, parent in
            element.namespace == rdf && element.name == "Description" && parent?.namespace == rdf
                && parent?.name == "RDF"
        }
        var notice = CopyrightNotice()
        for description in descriptions {
            var found = CopyrightNotice()
            found.copyright = text(of: description, dc, "rights")
            found.artist = items(of: description, dc, "creator").map { $0.joined(separator: "; ") }
            found.usageTerms = text(of: description, xmpRights, "UsageTerms")
            found.webStatement = text(of: description, xmpRights, "WebStatement")
            found.marked = text(of: description, xmpRights, "Marked").flatMap { value -> Bool? in
                switch value.lowercased() {
                case "true", "1": true
                case "false", "0": false
                default: nil
                }
            }
            found.credit = text(of: description, photoshop, "Credit")
            notice = notice.filled(from: found)
        }
        return notice.isEmpty ? nil : notice
    }

    /// A property's value items: the rdf:li texts of an rdf:Alt, rdf:Seq or rdf:Bag (the x-default item first in
    /// an Alt), or the one text of a simple value (an attribute, an element's text or its rdf:resource). Empty
    /// texts are left out; nil when the property is absent or has none.
    private static func items(
        of description: XMLScanner.Element, _ namespace: String, _ name: String
    ) -> [String]? {
        func present(_ text: String?) -> String? {
            guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
            return text
        }
        if let value = present(description.attribute(namespace, name)) { return [value] }
        guard let property = description.children.first(where: { $0.namespace == namespace && $0.name == name })
        else { return nil }
        if let resource = present(property.attribute(rdf, "resource")) { return [resource] }
        guard !property.children.isEmpty else { return present(property.text).map { [$0] } }
        guard
            let container = property.children.first(where: {
                $0.namespace == rdf && ["Alt", "Seq", "Bag"].contains($0.name)
            })
        else { return nil }
        var items = container.children.filter { $0.namespace == rdf && $0.name == "li" && $0.children.isEmpty }
        if container.name == "Alt", let index = items.firstIndex(where: { language(of: $0) == "x-default" }) {
            items.insert(items.remove(at: index), at: 0)
        }
        let texts = items.compactMap { present($0.text) }
        return texts.isEmpty ? nil : texts
    }

    /// The first of a property's items (an Alt's x-default), or nil.
    private static func text(of description: XMLScanner.Element, _ namespace: String, _ name: String) -> String? {
        items(of: description, namespace, name)?.first
    }

    private static func language(of element: XMLScanner.Element) -> String? {
        element.attribute(XMLScanner.xmlNamespace, "lang")?.lowercased()
    }

    /// A read-only XMP packet (UTF-8, in its xpacket wrapper) holding `notice`'s fields, nil when it has none.
    package static func packet(for notice: CopyrightNotice) -> [UInt8]? {
        var attributes: [String] = []
        var properties: [String] = []
        func alt(_ name: String, _ value: String?) {
            guard let value else { return }
            properties += [
                "   <\(name)>", "    <rdf:Alt>", "     <rdf:li xml:lang=\"x-default\">\(escaped(value))</rdf:li>",
                "    </rdf:Alt>", "   </\(name)>"
            ]
        }
        alt("dc:rights", notice.copyright)
        let creators = notice.creators
        if !creators.isEmpty {
            properties += ["   <dc:creator>", "    <rdf:Seq>"]
            properties += creators.map { "     <rdf:li>\(escaped($0))</rdf:li>" }
            properties += ["    </rdf:Seq>", "   </dc:creator>"]
        }
        alt("xmpRights:UsageTerms", notice.usageTerms)
        if let marked = notice.marked { attributes.append("xmpRights:Marked=\"\(marked ? "True" : "False")\"") }
        if let webStatement = notice.webStatement {
            attributes.append("xmpRights:WebStatement=\"\(escaped(webStatement))\"")
        }
        if let credit = notice.credit { attributes.append("photoshop:Credit=\"\(escaped(credit))\"") }
        guard !attributes.isEmpty || !properties.isEmpty else { return nil }
        let namespaces = ["xmlns:dc=\"\(dc)\"", "xmlns:xmpRights=\"\(xmpRights)\"", "xmlns:photoshop=\"\(photoshop)\""]
        let lines =
            [
                "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>",
                "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">",
                " <rdf:RDF xmlns:rdf=\"\(rdf)\">",
                "  <rdf:Description rdf:about=\"\""
            ] + (namespaces + attributes).map { "    " + $0 } + ["   >"] + properties + [
                "  </rdf:Description>", " </rdf:RDF>", "</x:xmpmeta>", "<?xpacket end=\"r\"?>"
            ]
        return Array(lines.joined(separator: "\n").utf8)
    }

    /// `text` as XML character data or an attribute value: `&`, `<`, `>`, `"` and `'` as entities, tab, line
    /// feed and carriage return as character references (a reader would turn them into spaces in an attribute),
    /// EXIF's NUL separator as "; ", and the other control characters XML 1.0 does not allow left out.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in CopyrightNotice.withoutNULs(text).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out += "&#\(scalar.value);"
            default:
                guard scalar.value >= 0x20, scalar.value != 0xFFFE, scalar.value != 0xFFFF else { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
