/// The members of a JSON object being written, gathered from several sources and written sorted
/// by name (UTF-8 byte order), one per name: of members with the same name, the one added last
/// wins, as a JSON object's last duplicate does.
struct SortedMembers<Value> {
    struct Member {
        var name: ByteSpan
        var order: Int
        var value: Value
    }

    /// After ``sort()``: one member per name, in name order.
    private(set) var members: [Member] = []

    init(capacity: Int = 8) { members.reserveCapacity(capacity) }

    /// Adds a member; it replaces any added before with the same name.
    mutating func add(_ name: ByteSpan, _ value: Value) {
        members.append(Member(name: name, order: members.count, value: value))
    }

    /// Puts the members in name order, keeping only the last added of each name.
    mutating func sort() {
        guard members.count > 1 else { return }
        if members.count <= 16 {
            // Objects here are small: an insertion sort, stable, beats the general sort's set-up.
            members.withUnsafeMutableBufferPointer { members in
                for index in 1..<members.count {
                    let member = members[index]
                    var position = index
                    while position > 0 && member.name < members[position - 1].name {
                        members[position] = members[position - 1]
                        position -= 1
                    }
                    members[position] = member
                }
            }
        } else {
            members.sort { $0.name == $1.name ? $0.order < $1.order : $0.name < $1.name }
        }
        var kept = 0
        for index in members.indices {
            if index + 1 < members.count && members[index + 1].name == members[index].name { continue }
            members[kept] = members[index]
            kept += 1
        }
        members.removeLast(members.count - kept)
    }

    /// Writes the sorted members as `{"name":value,...}`; `writeValue` writes a value and returns
    /// false to leave the member out.
    func write(to output: inout ByteWriter, _ writeValue: (Value, inout ByteWriter) -> Bool) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for member in members {
            let mark = output.count
            if !first { output.append(UInt8(ascii: ",")) }
            if member.name.isPlain {
                output.append(UInt8(ascii: "\""))
                output.append(member.name.buffer)
                output.append(#"":"#)
            } else {
                JSONOutput.writeString(utf8: member.name.buffer, to: &output)
                output.append(UInt8(ascii: ":"))
            }
            if writeValue(member.value, &output) {
                first = false
            } else {
                output.truncate(to: mark)
            }
        }
        output.append(UInt8(ascii: "}"))
    }
}

extension JSONDocument {
    /// Appends the value as compact JSON with object members sorted by name (the last of
    /// duplicate names wins): the bytes ``JSONValue/jsonBytes`` gives for the same value.
    func write(_ index: JSONNodeIndex, to output: inout ByteWriter) {
        let node = self[index]
        switch node.kind {
        case .null, .false, .true, .number:
            output.append(span(index).buffer)
        case .string:
            if node.hasEscapes {
                utf8(index).withUnsafeBufferPointer { JSONOutput.writeString(utf8: $0, to: &output) }
            } else {
                // Checked by the parser: no quote, backslash or control character inside.
                output.append(UInt8(ascii: "\""))
                output.append(span(index).buffer)
                output.append(UInt8(ascii: "\""))
            }
        case .array:
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements(of: index) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object:
            var members = SortedMembers<JSONNodeIndex>()
            for (key, value) in self.members(of: index) { members.add(name(key), value) }
            members.sort()
            members.write(to: &output) { value, output in
                write(value, to: &output)
                return true
            }
        }
    }
}
