/// A small, strict-where-it-matters reader for the XML an XMP packet is: elements, attributes, text, the five
/// predefined entities and character references, namespaces resolved to their URIs. Comments, processing
/// instructions (the xpacket wrapper) and a DOCTYPE are skipped; CDATA is text. No DTD, no external anything.
/// Whatever it cannot read (a tag left open, an end tag that does not match, nesting deeper than
/// `maxDepth`) makes the whole document nil: a caller then treats the packet as absent.
package struct XMLScanner {
    /// An element with its namespace-resolved name and attributes, its child elements and its text.
    package struct Element {
        /// The namespace URI ("" for none) and the local name.
        package var namespace: String, name: String
        /// Attributes other than namespace declarations: namespace URI, local name, value (entities decoded).
        package var attributes: [(namespace: String, name: String, value: String)] = []
        /// Child elements, in document order.
        package var children: [Element] = []
        /// The text directly inside the element (between its children too), entities decoded.
        package var text = ""

        /// The value of the attribute `name` in `namespace`, or nil.
        package func attribute(_ namespace: String, _ name: String) -> String? {
            attributes.first { $0.namespace == namespace && $0.name == name }?.value
        }

        /// Every element at or below this one for which `matches` holds, depth first, the element before its
        /// descendants, with its parent (nil for this element).
        package func all(where matches: (Element, Element?) -> Bool) -> [Element] {
            var found: [Element] = []
            var pending: [(Element, Element?)] = [(self, nil)]
            while let (element, parent) = pending.popLast() {
                if matches(element, parent) { found.append(element) }
                pending += element.children.reversed().map { ($0, element) }
            }
            return found
        }
    }

    /// The namespace URI the `xml` prefix is bound to by definition.
    package static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    /// Deeper nesting than this reads as malformed.
    package static let maxDepth = 100

    private let bytes: [UInt8]
    private var at = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The document in `utf8` (a byte-order mark at the start is skipped) as an element whose children are its
    /// top-level elements, or nil when it is malformed.
    package static func document(_ utf8: some Collection<UInt8>) -> Element? {
        var scanner = XMLScanner(Array(utf8))
        if scanner.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.at = 3 }
        return scanner.parse()
    }

    /// An open element: the element so far, its prefix bindings and its name as written (for the end tag).
    private struct Open {
        var element: Element
        var prefixes: [String: String]
        var qualifiedName: String
    }

    private mutating func parse() -> Element? {
        var stack = [
            Open(element: Element(namespace: "", name: ""), prefixes: ["xml": Self.xmlNamespace], qualifiedName: "")
        ]
        while at < bytes.count {
            guard bytes[at] == UInt8(ascii: "<") else {
                let start = at
                while at < bytes.count, bytes[at] != UInt8(ascii: "<") { at += 1 }
                stack[stack.count - 1].element.text += Self.decodingEntities(bytes[start..<at])
                continue
            }
            if skip("<!--") {
                guard skip(through: "-->") else { return nil }
            } else if skip("<![CDATA[") {
                let start = at
                guard skip(through: "]]>") else { return nil }
                stack[stack.count - 1].element.text += String(decoding: bytes[start..<(at - 3)], as: UTF8.self)
            } else if skip("<?") {
                guard skip(through: "?>") else { return nil }
            } else if skip("<!") {
                guard skip(through: ">") else { return nil }
            } else if skip("</") {
                let name = readName()
                skipSpace()
                guard skip(">"), stack.count > 1, let open = stack.popLast(), open.qualifiedName == name else {
                    return nil
                }
                stack[stack.count - 1].element.children.append(open.element)
            } else {
                at += 1
                guard let (open, closed) = readStartTag(in: stack[stack.count - 1].prefixes) else { return nil }
                if closed {
                    stack[stack.count - 1].element.children.append(open.element)
                } else {
                    guard stack.count <= Self.maxDepth else { return nil }
                    stack.append(open)
                }
            }
        }
        return stack.count == 1 ? stack[0].element : nil
    }

    /// A start tag's element after its "<", and whether it closed itself ("/>"); nil when malformed or when a
    /// prefix is not bound.
    private mutating func readStartTag(in parentPrefixes: [String: String]) -> (Open, Bool)? {
        let qualifiedName = readName()
        guard !qualifiedName.isEmpty else { return nil }
        var raw: [(String, String)] = []
        var prefixes = parentPrefixes
        var closed = false
        while true {
            let hadSpace = skipSpace()
            if skip("/>") {
                closed = true
                break
            }
            if skip(">") { break }
            let name = readName()
            guard hadSpace, !name.isEmpty else { return nil }
            skipSpace()
            guard skip("=") else { return nil }
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else {
                return nil
            }
            let quote = bytes[at]
            at += 1
            let start = at
            while at < bytes.count, bytes[at] != quote, bytes[at] != UInt8(ascii: "<") { at += 1 }
            guard at < bytes.count, bytes[at] == quote else { return nil }
            // Attribute-value normalisation: a literal tab, CR or LF is a space.
            let value = Self.decodingEntities(bytes[start..<at].map { [9, 10, 13].contains($0) ? 0x20 : $0 })
            at += 1
            if name == "xmlns" {
                prefixes[""] = value
            } else if name.hasPrefix("xmlns:") {
                prefixes[String(name.dropFirst(6))] = value
            } else {
                raw.append((name, value))
            }
        }
        func resolved(_ qualified: String, isAttribute: Bool) -> (String, String)? {
            guard let colon = qualified.firstIndex(of: ":") else {
                // An unprefixed attribute has no namespace; an unprefixed element takes the default one.
                return (isAttribute ? "" : prefixes[""] ?? "", qualified)
            }
            guard let namespace = prefixes[String(qualified[..<colon])] else { return nil }
            return (namespace, String(qualified[qualified.index(after: colon)...]))
        }
        guard let (namespace, name) = resolved(qualifiedName, isAttribute: false) else { return nil }
        var element = Element(namespace: namespace, name: name)
        for (qualified, value) in raw {
            guard let (attributeNamespace, attributeName) = resolved(qualified, isAttribute: true) else { return nil }
            element.attributes.append((attributeNamespace, attributeName, value))
        }
        return (Open(element: element, prefixes: prefixes, qualifiedName: qualifiedName), closed)
    }

    /// The name at the cursor: everything up to white space, "/", ">", "=" or the end.
    private mutating func readName() -> String {
        let start = at
        while at < bytes.count, !Self.isSpace(bytes[at]),
            ![UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "<")].contains(bytes[at])
        {
            at += 1
        }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    /// Moves past white space; whether there was any.
    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = at
        while at < bytes.count, Self.isSpace(bytes[at]) { at += 1 }
        return at > start
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Moves past `literal` when the cursor is at it.
    private mutating func skip(_ literal: String) -> Bool {
        let utf8 = Array(literal.utf8)
        guard bytes[at...].starts(with: utf8) else { return false }
        at += utf8.count
        return true
    }

    /// Moves just past the next `terminator`; false (cursor unmoved) when there is none.
    private mutating func skip(through terminator: String) -> Bool {
        let utf8 = Array(terminator.utf8)
        var index = at
        while index + utf8.count <= bytes.count {
            if bytes[index] == utf8[0], bytes[index..<(index + utf8.count)].elementsEqual(utf8) {
                at = index + utf8.count
                return true
            }
            index += 1
        }
        return false
    }

    /// `raw` with the predefined entities and character references replaced; anything else after an "&" is
    /// kept as written.
    static func decodingEntities(_ raw: some Collection<UInt8>) -> String {
        let raw = Array(raw)
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            guard raw[index] == UInt8(ascii: "&"),
                let end = raw[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")),
                let replacement = entity(String(decoding: raw[(index + 1)..<end], as: UTF8.self))
            else {
                out.append(raw[index])
                index += 1
                continue
            }
            out += replacement.utf8
            index = end + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text an entity or character reference (without "&" and ";") stands for, nil when unknown.
    private static func entity(_ name: String) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value =
                digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap { Unicode.Scalar($0) }.map { String(Character($0)) }
        }
    }
}
