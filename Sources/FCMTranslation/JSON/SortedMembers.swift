/// The members of a JSON object being written, gathered from several sources and written sorted
/// by name (UTF-8 byte order), one per name: of members with the same name, the one added last
/// wins, as a JSON object's last duplicate does.
///
/// Made and dropped for every object a translation writes, so its members live in one `malloc`
/// block it frees itself: an `Array` of them cost about 400 instructions a list to allocate and
/// release through the runtime's generic element destruction, this about 150. Not copyable, so
/// that one value owns the block; the values are bitwise copyable, so the block never needs
/// deinitializing.
struct SortedMembers<Value: BitwiseCopyable>: ~Copyable {
    struct Member {
        var name: ByteSpan
        var order: Int
        var value: Value
    }

    private var storage: UnsafeMutablePointer<Member>
    private var capacity: Int
    private var count = 0

    init(capacity: Int = 8) {
        self.capacity = max(capacity, 1)
        storage = HeapMemory.allocate(capacity: self.capacity, of: Member.self)
    }

    deinit { HeapMemory.free(storage) }

    /// After ``sort()``: one member per name, in name order. Valid until the next ``add(_:_:)``
    /// (which may move the block) and while the list lives.
    var members: UnsafeBufferPointer<Member> { UnsafeBufferPointer(start: storage, count: count) }

    /// Adds a member; it replaces any added before with the same name.
    mutating func add(_ name: ByteSpan, _ value: Value) {
        if count == capacity {
            let larger = HeapMemory.allocate(capacity: capacity * 2, of: Member.self)
            larger.moveInitialize(from: storage, count: count)
            HeapMemory.free(storage)
            storage = larger
            capacity *= 2
        }
        (storage + count).initialize(to: Member(name: name, order: count, value: value))
        count += 1
    }

    /// Puts the members in name order, keeping only the last added of each name.
    mutating func sort() {
        guard count > 1 else { return }
        var sorting = UnsafeMutableBufferPointer(start: storage, count: count)
        if count <= 16 {
            // Objects here are small: an insertion sort, stable, beats the general sort's set-up.
            for index in 1..<count where sorting[index].name < sorting[index - 1].name {
                // Members already in place (most: lists are mostly added in order) are not moved.
                let member = sorting[index]
                sorting[index] = sorting[index - 1]
                var position = index - 1
                while position > 0 && member.name < sorting[position - 1].name {
                    sorting[position] = sorting[position - 1]
                    position -= 1
                }
                sorting[position] = member
            }
        } else {
            sorting.sort { $0.name == $1.name ? $0.order < $1.order : $0.name < $1.name }
        }
        var kept = 0
        for index in 0..<count {
            if index + 1 < count && sorting[index + 1].name == sorting[index].name { continue }
            if kept != index { sorting[kept] = sorting[index] }
            kept += 1
        }
        count = kept
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
