extension JSONValue {
    /// The value as compact JSON, with object members sorted by name (by their UTF-8 bytes) so
    /// that the same value always gives the same bytes.
    public var jsonBytes: [UInt8] {
        var output = ByteWriter()
        write(to: &output)
        return output.bytes
    }

    /// The value as compact JSON text.
    public var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// Appends the value's compact JSON to `output`.
    public func write(to output: inout ByteWriter) {
        switch self {
        case .null: output.append("null")
        case .bool(let value): output.append(value ? "true" : "false")
        case .number(let text): output.append(utf8: text)
        case .string(let text): JSONOutput.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
                .enumerated()
            {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONOutput.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}

/// Writing JSON straight into a ``ByteWriter``.
public enum JSONOutput {
    /// Appends `text` as a JSON string, escaping what JSON requires.
    public static func writeString(_ text: String, to output: inout ByteWriter) {
        var text = text
        text.withUTF8 { writeString(utf8: $0, to: &output) }
    }

    /// Appends UTF-8 bytes as a JSON string, escaping what JSON requires: one copy when nothing
    /// needs escaping.
    public static func writeString(utf8: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        output.append(UInt8(ascii: "\""))
        var start = 0
        while start < utf8.count {
            let clean = JSONScan.plainPrefix(
                UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start...]), allowingNonASCII: true)
            output.append(UnsafeBufferPointer(rebasing: utf8[start..<start + clean]))
            start += clean
            guard start < utf8.count else { break }
            writeEscaped(utf8[start], to: &output)
            start += 1
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ byte: UInt8, to output: inout ByteWriter) {
        switch byte {
        case UInt8(ascii: "\""): output.append(#"\""#)
        case UInt8(ascii: "\\"): output.append(#"\\"#)
        case 0x0A: output.append(#"\n"#)
        case 0x0D: output.append(#"\r"#)
        case 0x09: output.append(#"\t"#)
        default:
            output.append(#"\u00"#)
            writeHex(byte, to: &output)
        }
    }

    /// Appends a decimal integer.
    public static func writeInteger(_ value: Int64, to output: inout ByteWriter) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// The bytes ``writeInteger(_:to:)`` writes for `value`: its digits, and a sign when negative.
    public static func integerByteCount(_ value: Int64) -> Int {
        var magnitude = value.magnitude
        var count = value < 0 ? 2 : 1
        while magnitude >= 10 {
            magnitude /= 10
            count += 1
        }
        return count
    }

    /// Appends a byte as two lower-case hexadecimal digits.
    public static func writeHex(_ byte: UInt8, to output: inout ByteWriter) {
        output.append(hexDigit(byte >> 4))
        output.append(hexDigit(byte & 0xF))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
