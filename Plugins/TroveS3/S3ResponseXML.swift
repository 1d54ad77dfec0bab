import TroveCore

/// The few XML documents S3 speaks, read with TroveCore's `XMLScanner` by local name (S3 puts its elements in
/// a namespace that some compatible servers leave out).
enum S3ResponseXML {
    /// The fields of an `<Error>` document.
    struct ErrorFields: Equatable {
        var code = ""
        var message = ""
        var bucket: String?
        var key: String?
        var requestID: String?
    }

    /// The root element of `body`, nil when it is not XML.
    static func root(_ body: some Collection<UInt8>) -> XMLScanner.Element? {
        XMLScanner.document(body)?.children.first
    }

    /// The error `body` describes, nil when it is not an `<Error>` document (an empty body, an HTML page).
    static func error(in body: some Collection<UInt8>) -> ErrorFields? {
        guard let root = root(body), root.name == "Error" else { return nil }
        var fields = ErrorFields()
        for child in root.children {
            let text = child.text.trimmingWhitespace()
            switch child.name {
            case "Code": fields.code = text
            case "Message": fields.message = text
            case "BucketName": fields.bucket = text
            case "Key": fields.key = text
            case "RequestId": fields.requestID = text
            default: break
            }
        }
        return fields
    }

    /// The text of the child `name` of the root element `rootName`, nil when either is missing.
    static func field(_ name: String, of rootName: String, in body: some Collection<UInt8>) -> String? {
        guard let root = root(body), root.name == rootName,
            let child = root.children.first(where: { $0.name == name })
        else { return nil }
        return child.text.trimmingWhitespace()
    }

    /// The body of CompleteMultipartUpload: each part's number and ETag, in order.
    static func completeMultipartUpload(parts: [(number: Int, etag: String)]) -> String {
        "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            + parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(escaped($0.etag))</ETag></Part>" }
            .joined()
            + "</CompleteMultipartUpload>"
    }

    /// `text` with XML's special characters written as entities.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
